//! Scoring tables of the `rob` and `laizi` rule sets (docs/rules.md, SPEC §8): the
//! worked examples, exact points per seat. Landlord seat 1 and points base 10 throughout.

use doudizhu_rules::{
    Bid, Escape, Outcome, PlayedOut, RuleSet, Seat, Stakes, settle, settle_escape_with, settle_with,
};

fn seat(n: u8) -> Seat {
    Seat::new(n).expect("seat")
}

/// A deal played out with landlord seat 1, points base 10, no bomb, no spring.
fn played_out(winner: u8) -> PlayedOut {
    PlayedOut {
        points_base: 10,
        landlord: seat(1),
        bid: Bid::Pass,
        winner: seat(winner),
        bombs: 0,
        rockets: 0,
        landlord_plays: 6,
        farmer_cards_played: 15,
    }
}

fn rob() -> Stakes {
    Stakes {
        rule_set: RuleSet::Rob,
        ..Stakes::default()
    }
}

fn laizi() -> Stakes {
    Stakes {
        rule_set: RuleSet::Laizi,
        ..Stakes::default()
    }
}

#[test]
fn rob_with_nothing_added_is_classic_with_a_bid_of_one() {
    let s = settle_with(&played_out(1), &rob());
    assert_eq!(s.points, [-10, 20, -10]);
    assert_eq!((s.multiplier, s.bid, s.rule_set), (1, 0, RuleSet::Rob));
    assert_eq!(
        s.points,
        settle(&PlayedOut {
            bid: Bid::One,
            ..played_out(1)
        })
        .points
    );
}

/// Two robs (×4), farmer 0 and the landlord doubled, shown (×2), one bomb (×2); the
/// landlord wins. multiplier 16, so base × multiplier = 160; farmer 0 pays 160 × 2 × 2,
/// farmer 2 pays 160 × 1 × 2, the landlord takes both.
#[test]
fn rob_two_robs_doubles_shown_and_a_bomb_landlord_wins() {
    let stakes = Stakes {
        robs: 2,
        doubled: [true, true, false],
        shown: true,
        ..rob()
    };
    let s = settle_with(
        &PlayedOut {
            bombs: 1,
            ..played_out(1)
        },
        &stakes,
    );
    assert_eq!(s.outcome, Outcome::LandlordWon);
    assert_eq!(s.multiplier, 16);
    assert_eq!(s.points, [-640, 960, -320]);
    assert_eq!(
        (s.robs, s.doubled, s.shown, s.bombs),
        (2, [true, true, false], true, 1)
    );
}

/// The same stakes, the farmers win: every amount is reversed.
#[test]
fn rob_the_same_stakes_farmers_win() {
    let stakes = Stakes {
        robs: 2,
        doubled: [true, true, false],
        shown: true,
        ..rob()
    };
    let s = settle_with(
        &PlayedOut {
            bombs: 1,
            ..played_out(2)
        },
        &stakes,
    );
    assert_eq!(s.outcome, Outcome::FarmersWon { seat: seat(2) });
    assert_eq!(s.points, [640, -960, 320]);
}

/// A farmer's double is its own: only farmer 2 doubled, the landlord did not.
#[test]
fn rob_a_farmers_double_doubles_only_its_own_amount() {
    let stakes = Stakes {
        doubled: [false, false, true],
        ..rob()
    };
    let s = settle_with(&played_out(0), &stakes);
    assert_eq!(s.points, [10, -30, 20]);
}

/// The landlord's double doubles both farmers' amounts; with every seat doubled, each
/// farmer's is × 4.
#[test]
fn rob_the_landlords_double_doubles_both_farmers() {
    let landlord_only = Stakes {
        doubled: [false, true, false],
        ..rob()
    };
    assert_eq!(
        settle_with(&played_out(1), &landlord_only).points,
        [-20, 40, -20]
    );
    let everyone = Stakes {
        doubled: [true; 3],
        ..rob()
    };
    assert_eq!(
        settle_with(&played_out(1), &everyone).points,
        [-40, 80, -40]
    );
}

/// Three robs (the most an auction allows), shown, a rocket and a spring: 2^3 × 2 × 2 × 2.
#[test]
fn rob_three_robs_shown_rocket_and_spring() {
    let stakes = Stakes {
        robs: 3,
        shown: true,
        ..rob()
    };
    let s = settle_with(
        &PlayedOut {
            rockets: 1,
            farmer_cards_played: 0,
            ..played_out(1)
        },
        &stakes,
    );
    assert!(s.spring);
    assert_eq!(s.multiplier, 64);
    assert_eq!(s.points, [-640, 1280, -640]);
}

/// laizi: one rob (×2), a soft bomb (×2) and a hard bomb (×4); farmer 0 doubled; farmer
/// 2 plays out. multiplier 16, base × multiplier = 160.
#[test]
fn laizi_a_soft_and_a_hard_bomb_farmers_win() {
    let stakes = Stakes {
        robs: 1,
        doubled: [true, false, false],
        soft_bombs: 1,
        ..laizi()
    };
    let s = settle_with(
        &PlayedOut {
            bombs: 1,
            ..played_out(2)
        },
        &stakes,
    );
    assert_eq!(s.multiplier, 16);
    assert_eq!(s.points, [320, -480, 160]);
    assert_eq!((s.bombs, s.soft_bombs, s.wild_bombs), (1, 1, 0));
}

/// laizi: the wild bomb (×4), the rocket (×2), shown (×2), and a spring (×2): 32.
#[test]
fn laizi_wild_bomb_rocket_shown_and_spring() {
    let stakes = Stakes {
        shown: true,
        wild_bombs: 1,
        ..laizi()
    };
    let s = settle_with(
        &PlayedOut {
            rockets: 1,
            farmer_cards_played: 0,
            ..played_out(1)
        },
        &stakes,
    );
    assert_eq!(s.multiplier, 32);
    assert_eq!(s.points, [-320, 640, -320]);
}

/// A hard bomb quadruples in laizi but a bomb doubles in classic and rob.
#[test]
fn a_bomb_of_four_real_cards_counts_by_the_rule_set() {
    let bomb = PlayedOut {
        bombs: 1,
        ..played_out(1)
    };
    assert_eq!(settle_with(&bomb, &rob()).multiplier, 2);
    assert_eq!(settle_with(&bomb, &laizi()).multiplier, 4);
    assert_eq!(
        settle(&PlayedOut {
            bid: Bid::One,
            ..bomb
        })
        .multiplier,
        2
    );
}

/// The anti-spring doubles in every rule set.
#[test]
fn anti_spring_doubles_in_rob() {
    let s = settle_with(
        &PlayedOut {
            landlord_plays: 1,
            ..played_out(0)
        },
        &Stakes { robs: 1, ..rob() },
    );
    assert!(s.anti_spring);
    assert_eq!(s.multiplier, 4);
    assert_eq!(s.points, [40, -80, 40]);
}

fn escape(called: bool) -> Escape {
    Escape {
        points_base: 10,
        escaper: seat(2),
        landlord: None,
        bid: None,
        called,
        bombs: 0,
        rockets: 0,
    }
}

#[test]
fn escape_before_anyone_called_costs_three_points() {
    for stakes in [rob(), laizi()] {
        let s = settle_escape_with(&escape(false), &stakes);
        assert_eq!(s.points, [0, 0, -3]);
    }
}

/// After a call: base × the multiplier at the time × 3, doubles not counted. One rob,
/// shown, a soft bomb in laizi: 2 × 2 × 2 = 8, so 10 × 8 × 3.
#[test]
fn escape_after_a_call_costs_three_times_base_times_multiplier_without_doubles() {
    let stakes = Stakes {
        robs: 1,
        doubled: [true, true, true],
        shown: true,
        soft_bombs: 1,
        ..laizi()
    };
    let s = settle_escape_with(
        &Escape {
            landlord: Some(seat(1)),
            ..escape(true)
        },
        &stakes,
    );
    assert_eq!(s.outcome, Outcome::Escaped { seat: seat(2) });
    assert_eq!(s.multiplier, 8);
    assert_eq!(s.points, [0, 0, -240]);
    // Called, nobody robbed yet: base × 1 × 3.
    assert_eq!(
        settle_escape_with(&escape(true), &rob()).points,
        [0, 0, -30]
    );
}

#[test]
fn the_largest_conceivable_laizi_score_saturates_zero_sum() {
    let stakes = Stakes {
        robs: 3,
        doubled: [true; 3],
        shown: true,
        wild_bombs: 1,
        ..laizi()
    };
    let s = settle_with(
        &PlayedOut {
            points_base: u32::MAX,
            bombs: 12,
            rockets: 1,
            farmer_cards_played: 0,
            ..played_out(1)
        },
        &stakes,
    );
    assert_eq!(s.points.iter().sum::<i64>(), 0);
    assert!(s.points[1] > 0 && s.points[0] < 0);
}
