//! The bots' behaviour, rule by rule, and their strength against random play.
#![allow(clippy::unwrap_used)]

use doudizhu_rules::{
    Bid, Deal, DealRules, Kind, Phase, Rank, RankCounts, Seat as DdzSeat, Seed,
    TimeControl as DdzTime, classify,
};
use gamehub_bots::arena::{Bidding, Player, doudizhu_deal, gomoku_game, rule_set_deal};
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

/// Seat `me` to act with `hand`; seat 0 is the landlord (seat 1 plays after it, seat 2
/// before it); `trick` is the play to beat and who made it.
fn situation(me: u8, hand: &str, trick: Option<(u8, &str)>, cards_left: [u8; 3]) -> Situation {
    Situation {
        seat: seat(me),
        hand: ranks(hand),
        landlord: seat(0),
        kitty: RankCounts::EMPTY,
        plays: trick.iter().map(|(s, t)| (seat(*s), ranks(t))).collect(),
        to_beat: trick.map(|(s, t)| (seat(s), classify(&ranks(t)).unwrap())),
        cards_left,
    }
}

fn shown(play: Option<RankCounts>) -> String {
    play.map_or_else(|| "pass".to_owned(), |r| r.to_string())
}

#[test]
fn doudizhu_bot_bids_from_its_plan_and_never_bids_lower_or_equal() {
    let weak = ranks("3 3 4 4 6 6 8 8 T T Q Q 5 7 9 J K");
    let strong = ranks("X D 2 2 A A K K Q Q J J T T 9 9 3");
    assert_eq!(doudizhu::bid(&weak, Bid::Pass), Bid::Pass);
    assert_eq!(doudizhu::bid(&strong, Bid::Pass), Bid::Three);
    assert_eq!(doudizhu::bid(&strong, Bid::Three), Bid::Pass);
    assert!(doudizhu::hand_strength(&strong) > doudizhu::hand_strength(&weak));
}

#[test]
fn doudizhu_bot_goes_out_when_one_play_empties_its_hand() {
    let s = situation(0, "5 5 5 9", None, [4, 17, 17]);
    assert_eq!(shown(doudizhu::play(&s)), "5 5 5 9");
}

#[test]
fn doudizhu_bot_leads_its_weakest_group_with_a_real_single_as_kicker() {
    // 3 3 3 takes the lone 5, not a card of the 8s.
    let s = situation(0, "3 3 3 5 8 8 K K 2 2", None, [10, 17, 17]);
    assert_eq!(shown(doudizhu::play(&s)), "3 3 3 5");
}

#[test]
fn doudizhu_bot_leads_no_single_into_an_opponent_holding_one_card() {
    let s = situation(1, "4 8 8 K", None, [1, 4, 17]);
    assert_eq!(shown(doudizhu::play(&s)), "8 8");
}

#[test]
fn doudizhu_farmer_feeds_a_partner_holding_one_card_its_lowest_card() {
    // Even from a pair: the lower the card, the likelier the partner goes out over it.
    let s = situation(1, "4 4 7 9 9 9 K", None, [12, 7, 1]);
    assert_eq!(shown(doudizhu::play(&s)), "4");
}

#[test]
fn doudizhu_bot_beats_a_single_without_tearing_a_pair() {
    let s = situation(1, "7 7 9 Q Q K 3 3 4 4 5 5", Some((0, "6")), [15, 12, 17]);
    assert_eq!(shown(doudizhu::play(&s)), "9");
}

#[test]
fn doudizhu_farmer_spends_a_2_to_stop_the_landlord_running_singles() {
    let s = situation(1, "2 3 3 5 5 7 7 9 9 J J", Some((0, "K")), [15, 11, 17]);
    assert_eq!(shown(doudizhu::play(&s)), "2");
}

#[test]
fn doudizhu_bot_does_not_break_an_airplane_to_beat_a_pair() {
    let s = situation(1, "K K K A A A 4 6 9", Some((0, "Q Q")), [15, 9, 17]);
    assert_eq!(shown(doudizhu::play(&s)), "pass");
}

#[test]
fn doudizhu_second_farmer_covers_its_partner_when_the_landlord_could_go_out() {
    // Seat 2 plays just before the landlord, which holds one card.
    let cover = situation(2, "6 9 K 2 3 3", Some((1, "5")), [1, 10, 6]);
    assert_eq!(shown(doudizhu::play(&cover)), "2");
    // With the landlord far from going out, the partner's trick stands.
    let calm = situation(2, "6 9 K 2 3 3", Some((1, "5")), [9, 10, 6]);
    assert_eq!(shown(doudizhu::play(&calm)), "pass");
    // A partner's card nothing can beat needs no cover.
    let safe = situation(2, "6 9 K 2 3 3", Some((1, "D")), [1, 10, 6]);
    assert_eq!(shown(doudizhu::play(&safe)), "pass");
    // The first farmer never needs to: the landlord already passed the trick.
    let first = situation(1, "6 9 K 2 3 3", Some((2, "5")), [1, 6, 10]);
    assert_eq!(shown(doudizhu::play(&first)), "pass");
}

#[test]
fn doudizhu_stronger_farmer_takes_the_lead_when_its_hand_then_runs_out() {
    // The big joker cannot be beaten; then the pair of 9s goes out.
    let s = situation(2, "D 9 9", Some((1, "5")), [12, 10, 3]);
    assert_eq!(shown(doudizhu::play(&s)), "D");
}

#[test]
fn doudizhu_bot_bombs_only_when_the_bomb_decides_the_deal() {
    // After the bomb the pair of aces runs out: bomb.
    let winning = situation(1, "7 7 7 7 A A", Some((0, "2")), [10, 6, 17]);
    assert_eq!(
        classify(&doudizhu::play(&winning).unwrap()).unwrap().kind,
        Kind::Bomb
    );
    // Nothing decided yet and the landlord far from out: keep the bomb.
    let calm = situation(1, "7 7 7 7 3 5 9 J", Some((0, "2")), [12, 8, 17]);
    assert_eq!(shown(doudizhu::play(&calm)), "pass");
    // The landlord close to going out: bomb.
    let urgent = situation(1, "7 7 7 7 3 5 9 J", Some((0, "2")), [3, 8, 17]);
    assert_eq!(
        classify(&doudizhu::play(&urgent).unwrap()).unwrap().kind,
        Kind::Bomb
    );
}

#[test]
fn doudizhu_bot_plays_its_controls_first_when_they_win_the_deal() {
    // Nothing out beats the rocket or the 2 2 (both jokers are here, the other 2s are
    // played): rocket or 2s first, the low single last.
    let mut s = situation(0, "X D 2 2 4", None, [5, 10, 12]);
    s.plays = vec![(seat(1), ranks("2")), (seat(2), ranks("2"))];
    let lead = doudizhu::play(&s).unwrap();
    assert_ne!(lead, ranks("4"), "the loose single waits for last");
}

#[test]
fn doudizhu_situation_follows_the_turns() {
    let turns = [
        (seat(0), Some(ranks("3 3"))),
        (seat(1), Some(ranks("5 5"))),
        (seat(2), None),
        (seat(0), None),
    ];
    let s = Situation::from_turns(seat(1), ranks("4"), seat(0), ranks("X D 2"), &turns).unwrap();
    assert_eq!(s.cards_left, [18, 15, 17]);
    assert_eq!(s.to_beat, None, "two passes: seat 1 leads");
    let s =
        Situation::from_turns(seat(2), ranks("4"), seat(0), ranks("X D 2"), &turns[..2]).unwrap();
    assert_eq!(
        s.to_beat.map(|(w, c)| (w, c.rank)),
        Some((seat(1), Rank::Five))
    );
}

fn no_clock() -> DealRules {
    DealRules {
        points_base: 1,
        time: DdzTime {
            turn_ms: 0,
            auto_turn_ms: 0,
        },
        rule_set: doudizhu_rules::RuleSet::Classic,
    }
}

#[test]
fn doudizhu_bot_as_auto_play_plays_whole_deals_through_the_rules() {
    // Every seat on auto-play with the bot: the deal is played out by the bot alone,
    // every play checked by the rule crate, and it plays combinations, not only the
    // timeout's smallest singles.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut longer = 0;
    for _ in 0..40 {
        let seed = Seed::from_bytes(rng.random());
        let (mut deal, _) = Deal::new("auto", seed, seat(0), no_clock(), 0).unwrap();
        deal.bid(seat(0), Bid::Three, 0).unwrap();
        for s in [seat(0), seat(1), seat(2)] {
            deal.set_auto_play(s, true, 0).unwrap();
        }
        let events = deal.auto_play_pending_with(0, &doudizhu::AutoPlay);
        assert_eq!(deal.phase(), Phase::Finished);
        for e in &events {
            if let doudizhu_rules::EventBody::Played { cards, by, .. } = &e.body {
                assert_eq!(*by, doudizhu_rules::Actor::AutoPlay);
                longer += usize::from(cards.len() > 1);
            }
        }
    }
    assert!(longer > 100, "{longer} plays of more than one card");
}

#[test]
fn doudizhu_bot_is_a_function_of_the_situation() {
    // Same situation, same play: the dealer may re-run a step after a lost race.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..200 {
        let seed = Seed::from_bytes(rng.random());
        let (mut deal, _) = Deal::new("same", seed, seat(0), no_clock(), 0).unwrap();
        deal.bid(seat(0), Bid::Three, 0).unwrap();
        while let Some(to_act) = deal.to_act() {
            let view = deal.view(to_act);
            let s = Situation::from_view(&view).unwrap();
            let first = doudizhu::play(&s);
            assert_eq!(first, doudizhu::play(&s.clone()));
            match first {
                Some(r) => {
                    let cards = deal.hand(to_act).pick(&r).unwrap().to_vec();
                    deal.play(to_act, &cards, 0).unwrap();
                }
                None => {
                    deal.pass(to_act, 0).unwrap();
                }
            }
        }
    }
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
            Bidding::Forced(seat(0)),
            &mut rng,
        )
        .expect("every deal completes with legal plays only");
        assert_eq!(result.landlord, seat(0));
        won += usize::from(result.landlord_won);
    }
    assert!(won > 270, "the bot landlord won {won} of 300");
}

#[test]
fn doudizhu_bot_farmers_beat_a_random_landlord_in_most_deals() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut won = 0;
    for _ in 0..300 {
        let seed = Seed::from_bytes(rng.random());
        let result = doudizhu_deal(
            seed,
            [Player::Random, Player::Bot, Player::Bot],
            Bidding::Forced(seat(0)),
            &mut rng,
        )
        .unwrap();
        won += usize::from(!result.landlord_won);
    }
    assert!(won > 285, "the bot farmers won {won} of 300");
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

proptest::proptest! {
    /// The load generators' candidate stones are exactly the empty points within
    /// `reach` (Chebyshev distance) of a stone, each once; h8 alone on an empty board.
    #[test]
    fn points_near_are_the_empty_points_within_reach_of_a_stone(
        stones in proptest::collection::vec((0u8..15, 0u8..15, proptest::bool::ANY), 0..120),
        reach in 0u8..5,
    ) {
        let mut board = gomoku_rules::Board::new();
        for (x, y, black) in stones {
            let color = if black { gomoku_rules::Color::Black } else { gomoku_rules::Color::White };
            let _ = board.place(Point::new(x, y).unwrap(), color);
        }
        let mut got = gomoku::points_near(&board, reach);
        let count = got.len();
        got.sort_by_key(|p| p.index());
        got.dedup();
        proptest::prop_assert_eq!(got.len(), count, "a point came twice");
        let want: Vec<Point> = if board.stone_count() == 0 {
            vec![Point::CENTER]
        } else {
            Point::all()
                .filter(|&p| board.is_empty(p) && board.stones().any(|s| s.point.distance(p) <= reach))
                .collect()
        };
        let mut want = want;
        want.sort_by_key(|p| p.index());
        proptest::prop_assert_eq!(got, want);
    }
}

// ---- the rule sets that call and rob (`rob`, `laizi`) ----------------------------------

#[test]
fn a_strong_hand_calls_robs_and_doubles_and_a_weak_one_declines() {
    let strong = ranks("3 4 5 6 7 8 9 T J Q K A 2 2 2 X D");
    let weak = ranks("3 3 4 5 6 7 7 8 9 9 T J J Q K K A");
    assert!(doudizhu::call(&strong) && doudizhu::rob(&strong));
    assert!(doudizhu::double(&strong, false, false));
    assert!(!doudizhu::call(&weak) && !doudizhu::rob(&weak));
    assert!(!doudizhu::double(&weak, false, false) && !doudizhu::double(&weak, false, true));
    // A farmer needs more to double where wild cards favour the landlord.
    let fair = (0..4000)
        .map(|i| {
            let mut rng = ChaCha8Rng::seed_from_u64(i);
            let seed = Seed::from_bytes(rng.random());
            doudizhu_rules::deal(&seed).hands[0].rank_counts()
        })
        .find(|hand| doudizhu::double(hand, false, false) && !doudizhu::double(hand, false, true));
    assert!(fair.is_some(), "some hand doubles in rob but not in laizi");
    // The landlord shows only what it would double with.
    let twenty = ranks("3 3 3 4 4 4 5 5 5 6 6 6 2 2 2 2 X D A A");
    assert!(doudizhu::show(&twenty) && doudizhu::double(&twenty, true, false));
}

/// Every deal of `rule_set` the bots play through the rule crate ends (no action
/// refused); returns (deals played out, landlord wins, redeals).
fn rule_set_deals(
    rule_set: doudizhu_rules::RuleSet,
    players: [Player; 3],
    n: u64,
) -> (u32, u32, u32) {
    let (mut played, mut won, mut redeals) = (0, 0, 0);
    for i in 0..n {
        let mut rng = ChaCha8Rng::seed_from_u64(1_000 + i);
        let seed = Seed::from_bytes(rng.random());
        match rule_set_deal(seed, rule_set, players, &mut rng) {
            Some(result) => {
                played += 1;
                won += u32::from(result.landlord_won);
                assert!(result.settlement.points.iter().sum::<i64>() == 0);
            }
            None => redeals += 1,
        }
    }
    (played, won, redeals)
}

#[test]
fn the_bots_play_rob_and_laizi_deals_to_the_end() {
    for rule_set in [doudizhu_rules::RuleSet::Rob, doudizhu_rules::RuleSet::Laizi] {
        let (played, _, redeals) = rule_set_deals(rule_set, [Player::Bot; 3], 60);
        // A redeal is a deal nobody called; the bots call most hands worth it.
        assert!(
            played >= 50,
            "{rule_set}: {played} played, {redeals} redeals"
        );
    }
}

#[test]
fn in_laizi_the_bot_wins_more_than_the_classic_judgement_reading_wilds_as_themselves() {
    use doudizhu_rules::RuleSet::Laizi;
    // The same deals, landlord chosen by the bots' decisions, the cards played by the bot
    // on one side and by the classic strategy (wild cards only ever themselves) on the
    // other, then swapped.
    let mut bot_side = 0;
    let mut baseline_side = 0;
    for i in 0..150u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(5_000 + i);
        let seed = Seed::from_bytes(rng.random());
        let Some(first) = rule_set_deal(seed, Laizi, [Player::Bot; 3], &mut rng) else {
            continue;
        };
        let landlord = first.landlord.index();
        let mut players = [Player::Baseline; 3];
        players[landlord] = Player::Bot;
        let bot_landlord = rule_set_deal(seed, Laizi, players, &mut rng).unwrap();
        let mut players = [Player::Bot; 3];
        players[landlord] = Player::Baseline;
        let baseline_landlord = rule_set_deal(seed, Laizi, players, &mut rng).unwrap();
        bot_side +=
            u32::from(bot_landlord.landlord_won) + u32::from(!baseline_landlord.landlord_won);
        baseline_side +=
            u32::from(!bot_landlord.landlord_won) + u32::from(baseline_landlord.landlord_won);
    }
    assert!(
        bot_side > baseline_side,
        "the wild-card bot's side won {bot_side}, the classic judgement's {baseline_side}"
    );
}
