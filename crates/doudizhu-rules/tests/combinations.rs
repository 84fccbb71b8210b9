//! Combinations and beating, rule by rule (docs/rules.md#combinations).

mod common;

use common::*;
use doudizhu_rules::{Kind, Rank, classify};
use proptest::prelude::*;

fn assert_reads(text: &str, kind: Kind, rank: Rank, length: u8) {
    let c = read(text).unwrap_or_else(|| panic!("{text} should be a {kind}"));
    assert_eq!((c.kind, c.rank, c.length), (kind, rank, length), "{text}");
}

fn assert_invalid(text: &str) {
    assert_eq!(read(text), None, "{text} should not be a combination");
}

// ---- one test per kind -------------------------------------------------------------

#[test]
fn a_single_is_any_one_card() {
    assert_reads("3", Kind::Single, Rank::Three, 1);
    assert_reads("2", Kind::Single, Rank::Two, 1);
    assert_reads("X", Kind::Single, Rank::SmallJoker, 1);
    assert_reads("D", Kind::Single, Rank::BigJoker, 1);
}

#[test]
fn a_pair_is_two_cards_of_one_rank() {
    assert_reads("T T", Kind::Pair, Rank::Ten, 1);
    assert_reads("2 2", Kind::Pair, Rank::Two, 1);
    assert_invalid("3 4");
}

#[test]
fn a_triple_is_three_cards_of_one_rank() {
    assert_reads("K K K", Kind::Triple, Rank::King, 1);
    assert_invalid("K K A");
}

#[test]
fn a_triple_with_a_single_carries_one_card_of_another_rank() {
    assert_reads("3 3 3 4", Kind::TripleWithSingle, Rank::Three, 1);
    assert_reads("5 D 5 5", Kind::TripleWithSingle, Rank::Five, 1);
}

#[test]
fn a_triple_with_a_pair_carries_a_pair_of_another_rank() {
    assert_reads("4 4 4 9 9", Kind::TripleWithPair, Rank::Four, 1);
    assert_reads("A A A 2 2", Kind::TripleWithPair, Rank::Ace, 1);
    assert_invalid("4 4 4 9 T");
}

#[test]
fn a_straight_is_five_or_more_consecutive_ranks() {
    assert_reads("3 4 5 6 7", Kind::Straight, Rank::Three, 5);
    assert_reads("3 4 5 6 7 8 9 T J Q K A", Kind::Straight, Rank::Three, 12);
    assert_invalid("3 4 5 6");
    assert_invalid("3 4 5 6 8");
}

#[test]
fn chains_never_include_a_two_or_a_joker() {
    assert_invalid("J Q K A 2");
    assert_invalid("Q Q K K A A 2 2");
    assert_invalid("A A A 2 2 2");
    assert_invalid("K A 2 X D");
    assert_reads("T J Q K A", Kind::Straight, Rank::Ten, 5);
}

#[test]
fn a_pair_straight_is_three_or_more_consecutive_pairs() {
    assert_reads("3 3 4 4 5 5", Kind::PairStraight, Rank::Three, 3);
    assert_reads("5566778899TTJJQQKKAA", Kind::PairStraight, Rank::Five, 10);
    assert_invalid("3 3 4 4");
    assert_invalid("3 3 4 4 6 6");
}

#[test]
fn a_triple_straight_is_two_or_more_consecutive_triples() {
    assert_reads("333444", Kind::TripleStraight, Rank::Three, 2);
    assert_reads("555666777888", Kind::TripleStraight, Rank::Five, 4);
    assert_invalid("333555");
}

#[test]
fn an_airplane_with_singles_carries_one_card_per_triple() {
    assert_reads("444555 7 9", Kind::AirplaneWithSingles, Rank::Four, 2);
    assert_reads("333444555 7 9 J", Kind::AirplaneWithSingles, Rank::Three, 3);
    assert_reads("333444 X 2", Kind::AirplaneWithSingles, Rank::Three, 2);
}

#[test]
fn an_airplane_with_pairs_carries_one_pair_per_triple() {
    assert_reads(
        "333444555 77 99 JJ",
        Kind::AirplaneWithPairs,
        Rank::Three,
        3,
    );
    assert_reads("333444 22 55", Kind::AirplaneWithPairs, Rank::Three, 2);
    assert_invalid("333444 55 6");
}

#[test]
fn four_with_two_singles_is_not_a_bomb() {
    assert_reads("5555 3 8", Kind::FourWithTwoSingles, Rank::Five, 1);
    assert_reads("2222 X 3", Kind::FourWithTwoSingles, Rank::Two, 1);
}

#[test]
fn four_with_two_pairs_carries_two_pairs() {
    assert_reads("4444 55 77", Kind::FourWithTwoPairs, Rank::Four, 1);
    assert_invalid("4444 55 7");
}

#[test]
fn a_bomb_is_four_of_a_rank() {
    assert_reads("7777", Kind::Bomb, Rank::Seven, 1);
    assert_reads("2222", Kind::Bomb, Rank::Two, 1);
}

#[test]
fn the_rocket_is_both_jokers() {
    assert_reads("X D", Kind::Rocket, Rank::SmallJoker, 1);
}

// ---- one test per kicker rule ------------------------------------------------------

#[test]
fn kickers_cannot_share_the_body_rank() {
    assert_invalid("3 3 3 3 4"); // not a triple with a pair "3 4"
    assert_invalid("333444 3 5");
    assert_invalid("333444 4 5");
    assert_invalid("333444555 3 4 6");
    assert_invalid("333444 55 4 66"); // not airplane with pairs "3 4" + "55 66"
}

#[test]
fn kickers_are_never_four_of_one_rank() {
    assert_invalid("333444555666 7777");
    assert_invalid("333444 5555 66 77 8"); // 13 cards: nothing
}

#[test]
fn kickers_are_never_both_jokers() {
    assert_invalid("333444 X D");
    assert_invalid("4444 X D");
    assert_invalid("333 X D");
}

#[test]
fn the_jokers_are_not_a_pair() {
    assert_invalid("333 4 X D");
    assert_ne!(kind("X D"), Some(Kind::Pair));
    assert_invalid("4444 X D 55");
}

#[test]
fn an_airplanes_pairs_are_of_different_ranks() {
    assert_invalid("333444 5555");
    assert_invalid("333444555 77 77 99");
}

#[test]
fn four_with_two_pairs_needs_pairs_of_different_ranks() {
    assert_invalid("3333 5555");
    assert_invalid("33334444");
}

#[test]
fn two_fours_are_not_a_combination() {
    assert_invalid("33334444");
    assert_invalid("KKKKAAAA");
}

#[test]
fn four_with_two_singles_may_carry_a_pair() {
    assert_reads("4444 55", Kind::FourWithTwoSingles, Rank::Four, 1);
}

#[test]
fn an_airplanes_single_kickers_may_be_a_pair() {
    assert_reads("333444 55", Kind::AirplaneWithSingles, Rank::Three, 2);
    assert_reads("333444555 66 9", Kind::AirplaneWithSingles, Rank::Three, 3);
}

#[test]
fn a_triple_next_to_the_chain_is_not_a_wing() {
    assert_reads("333444555666", Kind::TripleStraight, Rank::Three, 4);
    assert_invalid("333444555666777 9");
    assert_invalid("444555666777 333 9"); // same cards as above, read from the other end
}

#[test]
fn a_triple_apart_from_the_chain_may_be_a_wing() {
    assert_reads("333444555 777", Kind::AirplaneWithSingles, Rank::Three, 3);
    assert_reads(
        "333444555666 888 9",
        Kind::AirplaneWithSingles,
        Rank::Three,
        4,
    );
}

#[test]
fn a_triple_of_twos_may_be_a_wing() {
    assert_reads("QQQKKKAAA 222", Kind::AirplaneWithSingles, Rank::Queen, 3);
}

// ---- beating -----------------------------------------------------------------------

/// (previous, next, next beats previous)
const BEATING: &[(&str, &str, bool)] = &[
    // Singles by rank, jokers on top; suits never matter.
    ("3", "4", true),
    ("A", "2", true),
    ("2", "X", true),
    ("X", "D", true),
    ("D", "X", false),
    ("5", "5", false),
    // Pairs and triples by rank.
    ("3 3", "4 4", true),
    ("2 2", "A A", false),
    ("K K K", "A A A", true),
    // Same kind and same card count only.
    ("3", "4 4", false),
    ("3 3", "4", false),
    ("3 4 5 6 7", "4 5 6 7 8 9", false),
    ("3 3 3 4", "4 4 4 5 5", false),
    // Straights by their top card.
    ("3 4 5 6 7", "4 5 6 7 8", true),
    ("T J Q K A", "9 T J Q K", false),
    ("33 44 55", "44 55 66", true),
    ("333 444", "444 555", true),
    // Kickers never count.
    ("3 3 3 2", "4 4 4 3", true),
    ("5 5 5 3", "4 4 4 2", false),
    ("333444 A A", "444555 3 3", true),
    ("333444 22 AA", "444555 66 77", true),
    ("5555 3 8", "6666 3 4", true),
    ("6666 33 44", "5555 AA 22", false),
    ("5555 3 8", "6666 33 44", false),
    // Bombs beat everything but a higher bomb or the rocket.
    ("2", "3333", true),
    ("3 4 5 6 7 8 9 T J Q K A", "3333", true),
    ("2222 X 3", "3333", true),
    ("4444", "3333", false),
    ("3333", "4444", true),
    ("2222", "X D", true),
    ("X D", "2222", false),
    // The rocket beats everything.
    ("333444555 77 99 JJ", "X D", true),
    ("D", "X D", true),
];

#[test]
fn the_beating_table_holds() {
    for &(previous, next, expected) in BEATING {
        let p = read(previous).unwrap_or_else(|| panic!("{previous} is a combination"));
        let n = read(next).unwrap_or_else(|| panic!("{next} is a combination"));
        assert_eq!(n.beats(&p), expected, "{next} on {previous}");
    }
}

#[test]
fn nothing_beats_itself() {
    all_multisets(6, &mut |counts| {
        if let Some(c) = classify(&from_counts(counts)) {
            assert!(!c.beats(&c), "{c}");
        }
    });
}

// ---- uniqueness --------------------------------------------------------------------

#[test]
fn every_valid_set_reads_as_exactly_one_combination() {
    // Exhaustive up to 8 cards; random beyond (see the property test below).
    let mut checked = 0usize;
    all_multisets(8, &mut |counts| {
        let readings = readings(counts);
        assert!(readings.len() <= 1, "{counts:?} reads as {readings:?}");
        assert_eq!(
            classify(&from_counts(counts)),
            readings.first().copied(),
            "{counts:?}"
        );
        checked += 1;
    });
    assert!(checked > 100_000);
}

/// Random multisets of 9 to 20 cards, biased towards triples so airplanes come up.
fn big_sets() -> impl Strategy<Value = [u8; 15]> {
    let count =
        prop_oneof![3 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8), 3 => Just(3u8), 1 => Just(4u8)];
    (prop::collection::vec(count, 13), 0u8..=1, 0u8..=1).prop_filter_map(
        "9 to 20 cards",
        |(regular, small, big)| {
            let mut counts = [0u8; 15];
            counts[..13].copy_from_slice(&regular);
            counts[SMALL_JOKER] = small;
            counts[BIG_JOKER] = big;
            // Trim from the top until at most 20 cards remain.
            let mut total: usize = counts.iter().map(|&c| usize::from(c)).sum();
            let mut rank = 14;
            while total > 20 {
                if counts[rank] > 0 {
                    counts[rank] -= 1;
                    total -= 1;
                } else {
                    rank = rank.checked_sub(1)?;
                }
            }
            (total >= 9).then_some(counts)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn large_sets_read_as_at_most_one_combination(counts in big_sets()) {
        let readings = readings(&counts);
        prop_assert!(readings.len() <= 1, "{:?} reads as {:?}", counts, readings);
        prop_assert_eq!(classify(&from_counts(&counts)), readings.first().copied());
    }
}
