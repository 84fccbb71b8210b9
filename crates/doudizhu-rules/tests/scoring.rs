//! Scoring examples (docs/rules.md#dou-dizhu-scoring, 积分).

use doudizhu_rules::{Bid, Outcome, PlayedOut, Seat, settle, settle_escape};

fn seat(n: u8) -> Seat {
    Seat::new(n).expect("seat")
}

fn played_out(winner: u8) -> PlayedOut {
    PlayedOut {
        points_base: 1,
        landlord: seat(1),
        bid: Bid::Three,
        winner: seat(winner),
        bombs: 0,
        rockets: 0,
        landlord_plays: 5,
        farmer_cards_played: 12,
    }
}

#[test]
fn a_landlord_win_pays_twice_base_times_multiplier() {
    let s = settle(&played_out(1));
    assert_eq!(s.outcome, Outcome::LandlordWon);
    assert_eq!(s.points, [-3, 6, -3]);
    assert_eq!(s.multiplier, 1);
}

#[test]
fn a_landlord_loss_is_the_reverse() {
    let s = settle(&played_out(2));
    assert_eq!(s.outcome, Outcome::FarmersWon { seat: seat(2) });
    assert_eq!(s.points, [3, -6, 3]);
}

#[test]
fn base_is_the_winning_bid_times_the_points_base() {
    let s = settle(&PlayedOut {
        points_base: 100,
        bid: Bid::Two,
        ..played_out(1)
    });
    assert_eq!(s.points, [-200, 400, -200]);
}

#[test]
fn each_bomb_or_rocket_played_doubles_the_multiplier() {
    let s = settle(&PlayedOut {
        bombs: 2,
        rockets: 1,
        ..played_out(0)
    });
    assert_eq!(s.multiplier, 8);
    assert_eq!(s.points, [24, -48, 24]);
}

#[test]
fn spring_doubles_again() {
    let s = settle(&PlayedOut {
        bombs: 1,
        farmer_cards_played: 0,
        ..played_out(1)
    });
    assert!(s.spring);
    assert_eq!(s.multiplier, 4);
    assert_eq!(s.points, [-12, 24, -12]);
}

#[test]
fn no_spring_if_a_farmer_played_a_card() {
    let s = settle(&PlayedOut {
        farmer_cards_played: 1,
        ..played_out(1)
    });
    assert!(!s.spring);
}

#[test]
fn anti_spring_doubles_again() {
    let s = settle(&PlayedOut {
        landlord_plays: 1,
        ..played_out(0)
    });
    assert!(s.anti_spring && !s.spring);
    assert_eq!(s.points, [6, -12, 6]);
    // The landlord playing out in its one play is a spring when farmers played nothing,
    // never an anti-spring.
    let s = settle(&PlayedOut {
        landlord_plays: 1,
        farmer_cards_played: 0,
        ..played_out(1)
    });
    assert!(s.spring && !s.anti_spring);
}

#[test]
fn escape_costs_three_times_base_times_multiplier_and_voids_the_deal_for_the_others() {
    let s = settle_escape(10, seat(0), Some(seat(1)), Some(Bid::Two), 1, 1);
    assert_eq!(s.outcome, Outcome::Escaped { seat: seat(0) });
    assert_eq!(s.points, [-2 * 10 * 4 * 3, 0, 0]);
}

#[test]
fn escape_before_any_bid_costs_three() {
    assert_eq!(
        settle_escape(1, seat(2), None, None, 0, 0).points,
        [0, 0, -3]
    );
    // Three points, not three times the points base: with no bid there is no base.
    assert_eq!(
        settle_escape(20, seat(2), None, Some(Bid::Pass), 0, 0).points,
        [0, 0, -3]
    );
    assert_eq!(
        settle_escape(20, seat(1), None, Some(Bid::One), 0, 0).points,
        [0, -60, 0]
    );
}

#[test]
fn the_largest_possible_score_does_not_overflow() {
    let s = settle(&PlayedOut {
        points_base: u32::MAX,
        bombs: 13,
        rockets: 1,
        farmer_cards_played: 0,
        ..played_out(1)
    });
    assert_eq!(s.points.iter().sum::<i64>(), 0);
    assert!(s.points[1] > 0);
}
