//! Wild cards (癞子): readings against the rule word for word, the order of bombs, and
//! generation against brute force over every sub-multiset and every substitution.

mod common;

use std::collections::HashSet;

use common::*;
use doudizhu_rules::{
    BombClass, Card, CardSet, Kind, Rank, RankCounts, Reading, ReadingError, WildPlay, classify,
    legal_plays, read_as, readings, wild_plays,
};
use proptest::prelude::*;

/// The reading of `meant` stated for `cards` under `wild`, which must be accepted.
fn reading(cards: &str, wild: Rank, meant: &str) -> Reading {
    read_as(&ranks(cards), wild, &ranks(meant)).expect("a reachable reading")
}

/// `cards` without the wild cards, and how many wild cards they hold.
fn split(cards: &RankCounts, wild: Rank) -> ([u8; 15], u8) {
    let mut real = counts(cards);
    real[wild.index()] = 0;
    (real, cards.count(wild))
}

/// Calls `visit` with every multiset of `size` ranks from 3..2 (what wilds can stand for).
fn stand_ins(size: usize, visit: &mut impl FnMut(&[u8; 15])) {
    fn go(from: usize, left: usize, current: &mut [u8; 15], visit: &mut impl FnMut(&[u8; 15])) {
        if left == 0 {
            visit(current);
            return;
        }
        for rank in from..=TWO {
            current[rank] += 1;
            go(rank, left - 1, current, visit);
            current[rank] -= 1;
        }
    }
    go(0, size, &mut [0; 15], visit);
}

/// Every (cards, reading) of exactly these cards, straight from the rule: all-wild cards at
/// face value; otherwise every substitution of the wilds, classified, a bomb soft when a
/// wild stands in and hard when none does.
fn rule_readings(cards: &RankCounts, wild: Rank) -> HashSet<Reading> {
    let (real, wilds) = split(cards, wild);
    let mut found = HashSet::new();
    if cards.is_empty() {
        return found;
    }
    if real.iter().all(|&n| n == 0) {
        let combination = classify(cards).expect("one to four of a rank");
        let bomb = (wilds == 4).then_some(BombClass::Wild);
        found.insert(Reading { combination, bomb });
        return found;
    }
    stand_ins(usize::from(wilds), &mut |substituted| {
        let mut meant = real;
        for rank in 0..15 {
            meant[rank] += substituted[rank];
        }
        let Some(meant) = RankCounts::from_counts(meant) else {
            return;
        };
        if let Some(combination) = classify(&meant) {
            let bomb = (combination.kind == Kind::Bomb).then_some(if wilds == 0 {
                BombClass::Hard
            } else {
                BombClass::Soft
            });
            found.insert(Reading { combination, bomb });
        }
    });
    found
}

/// Every (cards, reading) a hand allows that beats `previous`, by brute force: every
/// sub-multiset of the real cards with every number of wilds.
fn brute_force(
    hand: &RankCounts,
    wild: Rank,
    previous: Option<&Reading>,
) -> HashSet<(RankCounts, Reading)> {
    let (real, wilds) = split(hand, wild);
    let mut found = HashSet::new();
    sub_multisets(&real, &mut |sub| {
        for used in 0..=wilds {
            let mut cards = *sub;
            cards[wild.index()] = used;
            let cards = from_counts(&cards);
            for reading in rule_readings(&cards, wild) {
                if previous.is_none_or(|p| reading.beats(p)) {
                    found.insert((cards, reading));
                }
            }
        }
    });
    found
}

/// The plays as a set, checking each on the way: no (cards, reading) twice, cards from the
/// hand, and the representative `meant` accepted by `read_as` with the same reading.
fn checked(hand: &RankCounts, wild: Rank, plays: &[WildPlay]) -> HashSet<(RankCounts, Reading)> {
    let mut set = HashSet::new();
    for play in plays {
        assert!(
            set.insert((play.cards, play.reading)),
            "{} read as {:?} twice",
            play.cards,
            play.reading
        );
        assert!(play.cards.is_subset(hand), "{} not in {hand}", play.cards);
        assert_eq!(
            read_as(&play.cards, wild, &play.meant),
            Ok(play.reading),
            "{} meaning {}",
            play.cards,
            play.meant
        );
    }
    set
}

fn assert_exact(hand: &RankCounts, wild: Rank, previous: Option<&Reading>) {
    let got = checked(hand, wild, &wild_plays(hand, wild, previous));
    let want = brute_force(hand, wild, previous);
    let show = |set: HashSet<&(RankCounts, Reading)>| -> Vec<String> {
        set.into_iter()
            .map(|(cards, r)| format!("{cards} as {} {:?}", r.combination, r.bomb))
            .collect()
    };
    let missing = show(want.difference(&got).collect());
    let extra = show(got.difference(&want).collect());
    assert!(
        missing.is_empty() && extra.is_empty(),
        "hand {hand}, wild {wild}, previous {previous:?}: missing {missing:?}, extra {extra:?}"
    );
}

/// A wild rank (3..2) and a hand of `real` cards of other ranks plus `wilds` wild cards.
fn wild_hand(
    real: std::ops::RangeInclusive<usize>,
    wilds: std::ops::RangeInclusive<u8>,
) -> impl Strategy<Value = (Rank, RankCounts)> {
    (
        0..=TWO,
        real,
        wilds,
        Just(Card::deck().collect::<Vec<_>>()).prop_shuffle(),
    )
        .prop_map(|(wild, size, wilds, deck)| {
            let wild = Rank::ALL[wild];
            let real: CardSet = deck
                .into_iter()
                .filter(|card| card.rank() != wild)
                .take(size)
                .collect();
            let mut held = counts(&real.rank_counts());
            held[wild.index()] = wilds;
            (wild, from_counts(&held))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn leads_are_exactly_what_the_rule_allows((wild, hand) in wild_hand(0..=8, 0..=3)) {
        assert_exact(&hand, wild, None);
    }

    #[test]
    fn replies_are_exactly_what_the_rule_allows(
        (wild, hand) in wild_hand(0..=8, 0..=3),
        (_, other) in wild_hand(2..=10, 0..=4),
        pick in any::<prop::sample::Index>(),
    ) {
        // A previous play of any kind and bomb class: one of another hand's leads, where
        // the same wild rank stands in.
        let options = wild_plays(&other, wild, None);
        prop_assume!(!options.is_empty());
        let previous = options[pick.index(options.len())].reading;
        assert_exact(&hand, wild, Some(&previous));
    }

    #[test]
    fn every_reading_is_a_combination_the_cards_can_stand_for(
        (wild, cards) in wild_hand(0..=9, 0..=4)
    ) {
        let (real, wilds) = split(&cards, wild);
        let found = readings(&cards, wild);
        let mut seen = HashSet::new();
        for play in &found {
            prop_assert!(seen.insert(play.reading), "a reading listed twice");
            prop_assert_eq!(play.cards, cards);
            prop_assert_eq!(classify(&play.meant), Some(play.reading.combination));
            // Reachable: the real cards stand for themselves, the wilds for ranks 3..2.
            let standing = play.meant.checked_sub(&from_counts(&real)).expect("real cards kept");
            prop_assert_eq!(standing.len(), usize::from(wilds));
            prop_assert!(standing.iter().all(|rank| !rank.is_joker()));
            let class = match play.reading.combination.kind {
                Kind::Bomb if real.iter().all(|&n| n == 0) => Some(BombClass::Wild),
                Kind::Bomb if wilds == 0 => Some(BombClass::Hard),
                Kind::Bomb => Some(BombClass::Soft),
                _ => None,
            };
            prop_assert_eq!(play.reading.bomb, class);
            prop_assert_eq!(read_as(&cards, wild, &play.meant), Ok(play.reading));
        }
        // Sorted, and exactly the readings the rule gives.
        let listed: Vec<Reading> = found.iter().map(|p| p.reading).collect();
        let mut sorted = listed.clone();
        sorted.sort();
        prop_assert_eq!(&listed, &sorted);
        prop_assert_eq!(seen, rule_readings(&cards, wild));
    }

    #[test]
    fn read_as_refuses_what_the_cards_cannot_stand_for(
        (wild, cards) in wild_hand(1..=9, 0..=4),
        keep_real in any::<bool>(),
        others in prop::collection::vec(0usize..15, 13),
    ) {
        // A stated multiset of the same size: the real cards and random ranks for the wilds
        // (jokers among them), or random ranks throughout. Accepted exactly when reachable
        // and a combination.
        let (real, wilds) = split(&cards, wild);
        let kept = if keep_real { from_counts(&real) } else { RankCounts::EMPTY };
        let mut meant = kept;
        for &rank in others.iter().take(cards.len() - kept.len()) {
            if !meant.try_add(Rank::ALL[rank]) {
                return Ok(());
            }
        }
        let reachable = match meant.checked_sub(&from_counts(&real)) {
            None => false,
            Some(_) if real.iter().all(|&n| n == 0) => meant == cards,
            Some(standing) => {
                standing.len() == usize::from(wilds) && standing.iter().all(|r| !r.is_joker())
            }
        };
        let answer = read_as(&cards, wild, &meant);
        if !reachable {
            prop_assert_eq!(answer, Err(ReadingError::NotReachable));
        } else if classify(&meant).is_none() {
            prop_assert_eq!(answer, Err(ReadingError::NotACombination));
        } else {
            prop_assert!(rule_readings(&cards, wild).contains(&answer.expect("accepted")));
        }
    }

    #[test]
    fn without_wild_cards_generation_is_the_classic_one(
        (wild, hand) in wild_hand(1..=17, 0..=0),
        (_, other) in wild_hand(1..=12, 0..=0),
        pick in any::<prop::sample::Index>(),
    ) {
        let classic_previous = {
            let options = legal_plays(&other, None);
            options[pick.index(options.len())].combination
        };
        for previous in [None, Some(classic_previous)] {
            let classic: HashSet<RankCounts> =
                legal_plays(&hand, previous.as_ref()).iter().map(|p| p.ranks).collect();
            let previous = previous.map(Reading::classic);
            let plays = wild_plays(&hand, wild, previous.as_ref());
            let wild: HashSet<RankCounts> = plays.iter().map(|p| p.cards).collect();
            prop_assert_eq!(wild.len(), plays.len());
            prop_assert_eq!(&wild, &classic);
            for play in &plays {
                prop_assert_eq!(play.cards, play.meant);
                let class = (play.reading.combination.kind == Kind::Bomb).then_some(BombClass::Hard);
                prop_assert_eq!(play.reading.bomb, class);
            }
        }
    }

    #[test]
    fn classic_readings_beat_as_combinations_do(
        (_, a) in wild_hand(1..=12, 0..=0),
        (_, b) in wild_hand(1..=12, 0..=0),
        pick in any::<(prop::sample::Index, prop::sample::Index)>(),
    ) {
        let (a, b) = (legal_plays(&a, None), legal_plays(&b, None));
        let (a, b) = (a[pick.0.index(a.len())].combination, b[pick.1.index(b.len())].combination);
        prop_assert_eq!(Reading::classic(a).beats(&Reading::classic(b)), a.beats(&b));
    }
}

#[test]
fn four_wild_cards_with_few_others_are_exact() {
    // Four wilds, where the substitutions are most numerous.
    for (wild, hand) in [
        (Rank::Seven, "7777 3 4 5 6"),
        (Rank::Three, "3333 5 5 9 X D"),
        (Rank::Two, "2222 A A K"),
        (Rank::Ten, "TTTT 3 3 3 4"),
    ] {
        let hand = ranks(hand);
        assert_exact(&hand, wild, None);
        for previous in [
            reading("3 3 3 3", wild, "3 3 3 3"),
            reading("3 4 4 4", wild, "3 4 4 4"),
            reading("3 3 4 4 5 5", wild, "3 3 4 4 5 5"),
        ] {
            assert_exact(&hand, wild, Some(&previous));
        }
    }
}

#[test]
fn whole_hands_with_wilds_list_each_play_once_and_each_as_it_reads() {
    for (wild, text) in [
        (Rank::Seven, "3 3 3 4 4 4 5 5 5 6 6 6 7 7 8 8 9 9 X D"),
        (Rank::Seven, "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 7 7 7 2 2"),
        (Rank::Nine, "3 4 5 6 7 8 9 9 9 9 T J Q K A 2 2 X D 3"),
        (Rank::Queen, "8 8 8 9 9 9 T T T J J J Q Q Q Q 3 3 4 5"),
    ] {
        let hand = ranks(text);
        let leads = wild_plays(&hand, wild, None);
        checked(&hand, wild, &leads);
        // Every reply is a lead that beats.
        for previous in leads.iter().step_by(997).map(|p| p.reading) {
            let replies = wild_plays(&hand, wild, Some(&previous));
            let want: HashSet<_> = leads
                .iter()
                .filter(|p| p.reading.beats(&previous))
                .map(|p| (p.cards, p.reading))
                .collect();
            assert_eq!(
                checked(&hand, wild, &replies),
                want,
                "{text} on {previous:?}"
            );
        }
    }
}

#[test]
fn a_hard_bomb_beats_every_soft_bomb() {
    let hard_three = reading("3 3 3 3", Rank::Seven, "3 3 3 3");
    let soft_ace = reading("A A A 7", Rank::Seven, "A A A A");
    assert_eq!(hard_three.bomb, Some(BombClass::Hard));
    assert_eq!(soft_ace.bomb, Some(BombClass::Soft));
    assert!(hard_three.beats(&soft_ace));
    assert!(!soft_ace.beats(&hard_three));
}

#[test]
fn soft_bombs_go_by_rank_and_one_rank_does_not_beat_itself() {
    let three_and_wild = reading("3 3 3 7", Rank::Seven, "3 3 3 3");
    let one_and_three_wilds = reading("3 7 7 7", Rank::Seven, "3 3 3 3");
    let soft_four = reading("4 4 7 7", Rank::Seven, "4 4 4 4");
    assert!(!three_and_wild.beats(&one_and_three_wilds));
    assert!(!one_and_three_wilds.beats(&three_and_wild));
    assert!(soft_four.beats(&three_and_wild));
    assert!(!three_and_wild.beats(&soft_four));
}

#[test]
fn the_wild_bomb_beats_every_hard_bomb_and_the_rocket_beats_it() {
    let wild_bomb = reading("7 7 7 7", Rank::Seven, "7 7 7 7");
    let hard_two = reading("2 2 2 2", Rank::Seven, "2 2 2 2");
    let rocket = reading("X D", Rank::Seven, "X D");
    assert_eq!(wild_bomb.bomb, Some(BombClass::Wild));
    assert!(wild_bomb.beats(&hard_two));
    assert!(!hard_two.beats(&wild_bomb));
    assert!(rocket.beats(&wild_bomb));
    assert!(!wild_bomb.beats(&rocket));
    assert!(!wild_bomb.beats(&wild_bomb));
}

#[test]
fn any_bomb_beats_any_other_play_and_nothing_else_beats_a_bomb() {
    let soft_three = reading("3 3 7 7", Rank::Seven, "3 3 3 3");
    let straight = reading("T J Q K A", Rank::Seven, "T J Q K A");
    let pair_of_twos = reading("2 7", Rank::Seven, "2 2");
    assert!(soft_three.beats(&straight));
    assert!(soft_three.beats(&pair_of_twos));
    assert!(!straight.beats(&soft_three));
    assert!(!pair_of_twos.beats(&soft_three));
}

#[test]
fn bombs_multiply_by_their_class() {
    let factor = |cards: &str, meant: &str| reading(cards, Rank::Seven, meant).multiplier_factor();
    assert_eq!(factor("5 5 5 7", "5 5 5 5"), 2);
    assert_eq!(factor("5 5 5 5", "5 5 5 5"), 4);
    assert_eq!(factor("7 7 7 7", "7 7 7 7"), 4);
    assert_eq!(factor("X D", "X D"), 2);
    assert_eq!(factor("5 5 5 7", "5 5 5 7"), 1);
    let classic_bomb = Reading::classic(read("5 5 5 5").expect("bomb"));
    assert_eq!(classic_bomb.multiplier_factor(), 2);
}

#[test]
fn a_play_that_reads_two_ways_lists_both() {
    let found: Vec<Reading> = readings(&ranks("5 5 5 7"), Rank::Seven)
        .iter()
        .map(|p| p.reading)
        .collect();
    assert_eq!(
        found,
        [
            reading("5 5 5 7", Rank::Seven, "5 5 5 7"),
            reading("5 5 5 7", Rank::Seven, "5 5 5 5"),
        ]
    );
    // The kicker wild may stand for anything: still the one triple-with-single reading.
    assert_eq!(found[0], reading("5 5 5 7", Rank::Seven, "5 5 5 K"));
}

#[test]
fn wilds_with_a_real_card_may_make_a_body_of_any_rank() {
    // 3 W W W: a soft bomb of 3, a triple with a single of 3 (the wilds as a body of 3s
    // and a kicker), and triples of any other rank carrying the 3.
    let found = readings(&ranks("3 7 7 7"), Rank::Seven);
    let kinds: Vec<(Kind, Rank)> = found
        .iter()
        .map(|p| (p.reading.combination.kind, p.reading.combination.rank))
        .collect();
    assert_eq!(found.len(), 14, "{kinds:?}");
    assert!(kinds.contains(&(Kind::Bomb, Rank::Three)));
    assert!(kinds.contains(&(Kind::TripleWithSingle, Rank::Three)));
    assert!(kinds.contains(&(Kind::TripleWithSingle, Rank::Two)));
    assert!(kinds.contains(&(Kind::TripleWithSingle, Rank::Seven)));
}
