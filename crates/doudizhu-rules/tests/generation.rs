//! Legal-move generation against brute force over every sub-multiset of a hand.

mod common;

use std::collections::HashSet;

use common::*;
use doudizhu_rules::{Card, CardSet, Combination, Kind, RankCounts, classify, leads, replies};
use proptest::prelude::*;

/// Every sub-multiset of `hand` that is a combination and (if `previous`) beats it.
fn brute_force(hand: &RankCounts, previous: Option<&Combination>) -> HashSet<RankCounts> {
    let mut found = HashSet::new();
    sub_multisets(&counts(hand), &mut |sub| {
        let sub = from_counts(sub);
        if let Some(c) = classify(&sub)
            && previous.is_none_or(|p| c.beats(p))
        {
            found.insert(sub);
        }
    });
    found
}

fn generated(plays: &[doudizhu_rules::Play]) -> HashSet<RankCounts> {
    let set: HashSet<RankCounts> = plays.iter().map(|p| p.ranks).collect();
    assert_eq!(set.len(), plays.len(), "generation repeated a play");
    for play in plays {
        assert_eq!(
            classify(&play.ranks),
            Some(play.combination),
            "{}",
            play.ranks
        );
    }
    set
}

fn assert_exact(hand: &RankCounts, previous: Option<&Combination>) {
    let plays = match previous {
        None => leads(hand),
        Some(p) => replies(hand, p),
    };
    let got = generated(&plays);
    let want = brute_force(hand, previous);
    let missing: Vec<String> = want.difference(&got).map(|r| r.to_string()).collect();
    let extra: Vec<String> = got.difference(&want).map(|r| r.to_string()).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "hand {hand}, previous {previous:?}: missing {missing:?}, extra {extra:?}"
    );
}

/// A uniformly random hand of `size` real cards.
fn hand_of(size: usize) -> impl Strategy<Value = RankCounts> {
    Just(Card::deck().collect::<Vec<_>>())
        .prop_shuffle()
        .prop_map(move |deck| {
            deck[..size]
                .iter()
                .copied()
                .collect::<CardSet>()
                .rank_counts()
        })
}

/// Hands heavy in triples and fours, where airplanes and four-with-two come up.
fn clumped_hand(max: usize) -> impl Strategy<Value = RankCounts> {
    let count =
        prop_oneof![4 => Just(0u8), 1 => Just(1u8), 2 => Just(2u8), 3 => Just(3u8), 2 => Just(4u8)];
    (prop::collection::vec(count, 13), 0u8..=1, 0u8..=1).prop_map(move |(regular, small, big)| {
        let mut counts = [0u8; 15];
        counts[..13].copy_from_slice(&regular);
        counts[SMALL_JOKER] = small;
        counts[BIG_JOKER] = big;
        let mut total: usize = counts.iter().map(|&c| usize::from(c)).sum();
        for rank in (0..15).rev() {
            while total > max && counts[rank] > 0 {
                counts[rank] -= 1;
                total -= 1;
            }
        }
        from_counts(&counts)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn leads_are_exactly_the_combinations_in_the_hand(hand in (1usize..=16).prop_flat_map(hand_of)) {
        assert_exact(&hand, None);
    }

    #[test]
    fn leads_of_clumped_hands_are_exact(hand in clumped_hand(18)) {
        assert_exact(&hand, None);
    }

    #[test]
    fn replies_are_exactly_the_beating_combinations_in_the_hand(
        hand in (1usize..=16).prop_flat_map(hand_of),
        other in clumped_hand(20),
        pick in any::<prop::sample::Index>(),
    ) {
        // A previous play of any kind: one of the other hand's leads.
        let options = leads(&other);
        prop_assume!(!options.is_empty());
        let previous = options[pick.index(options.len())].combination;
        assert_exact(&hand, Some(&previous));
    }

    #[test]
    fn replies_of_clumped_hands_are_exact(
        hand in clumped_hand(18),
        other in clumped_hand(20),
        pick in any::<prop::sample::Index>(),
    ) {
        let options = leads(&other);
        prop_assume!(!options.is_empty());
        let previous = options[pick.index(options.len())].combination;
        assert_exact(&hand, Some(&previous));
    }

    #[test]
    fn classification_depends_only_on_the_ranks(cards in (1usize..=20).prop_flat_map(|n|
        Just(Card::deck().collect::<Vec<_>>()).prop_shuffle().prop_map(move |d| d[..n].to_vec())))
    {
        // The same ranks in other suits read the same, and so does the rank text.
        let set: CardSet = cards.iter().copied().collect();
        let ranks = set.rank_counts();
        // Other real cards of the same ranks, where the deck has them.
        if let Some(other) = CardSet::DECK.difference(set).pick(&ranks) {
            prop_assert!(other != set);
            prop_assert_eq!(other.rank_counts(), ranks);
        }
        let reread = RankCounts::parse(&ranks.to_string()).expect("display parses");
        prop_assert_eq!(reread, ranks);
        prop_assert_eq!(classify(&reread), classify(&ranks));
    }
}

#[test]
fn full_twenty_card_hands_are_exact() {
    // A few whole landlord hands, where the kicker enumeration is largest.
    for text in [
        "3 3 3 4 4 4 5 5 5 6 6 6 7 7 8 8 9 9 X D",
        "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 7 7 7 2 2",
        "3 4 5 6 7 8 9 T J Q K A 2 2 2 2 X D 3 4",
        "8 8 8 9 9 9 T T T J J J Q Q 3 3 4 4 5 5",
    ] {
        let hand = ranks(text);
        assert_exact(&hand, None);
        for previous in [
            "3 3 3 4 4 4 5 6",
            "3 3 3 4 4 4 5 5 6 6",
            "3333 4 5",
            "3333 44 55",
            "4444",
            "3",
            "3 3 3 4 4",
        ] {
            assert_exact(&hand, Some(&read(previous).expect("combination")));
        }
    }
}

#[test]
fn nothing_answers_the_rocket() {
    let hand = ranks("2222 X D 3 4 5 6 7");
    assert!(replies(&hand, &read("X D").expect("rocket")).is_empty());
    let on_bomb = replies(&hand, &read("A A A A").expect("bomb"));
    let kinds: Vec<Kind> = on_bomb.iter().map(|p| p.combination.kind).collect();
    assert_eq!(kinds, [Kind::Bomb, Kind::Rocket]);
}

#[test]
fn every_combination_of_the_deck_is_counted_as_in_rlcard() {
    // All distinct leads from a whole deck are all valid combinations of at most 20 cards.
    // RLCard 1.2.0's action space (`card_type.json`) holds the same 27,471 combinations
    // with the same kinds and lengths; `bench-python/compare_rlcard.py` checks it one by
    // one. Here the counts per kind, as RLCard reports them.
    let deck = ranks("3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222XD");
    let plays = leads(&deck);
    assert_eq!(generated(&plays).len(), 27_471);
    let count = |kind: Kind| plays.iter().filter(|p| p.combination.kind == kind).count();
    let expected = [
        (Kind::Single, 15),
        (Kind::Pair, 13),
        (Kind::Triple, 13),
        (Kind::TripleWithSingle, 182),
        (Kind::TripleWithPair, 156),
        (Kind::Straight, 36),
        (Kind::PairStraight, 52),
        (Kind::TripleStraight, 45),
        (Kind::AirplaneWithSingles, 21_822),
        (Kind::AirplaneWithPairs, 2_939),
        (Kind::FourWithTwoSingles, 1_326),
        (Kind::FourWithTwoPairs, 858),
        (Kind::Bomb, 13),
        (Kind::Rocket, 1),
    ];
    for (kind, n) in expected {
        assert_eq!(count(kind), n, "{kind}");
    }
}
