//! The `laizi` (癞子) rule set through the Deal: the wild rank drawn from the seed, plays
//! that read more than one way, stated readings (`play_as`), bomb classes in events and
//! views, records that verify the wild rank and replay.

use std::collections::BTreeMap;

use doudizhu_rules::{
    ActionError, BombClass, CardSet, Deal, DealRules, EventBody, Phase, RankCounts, RuleSet, Seat,
    Seed, TimeControl, VerifyError, WildPlay, reading_text, wild_rank,
};

fn seat(n: u8) -> Seat {
    Seat::new(n).expect("seat")
}

fn rules() -> DealRules {
    DealRules {
        points_base: 10,
        time: TimeControl::default(),
        rule_set: RuleSet::Laizi,
    }
}

/// A `laizi` deal from `seed` where seat 0 called, nobody robbed, doubled or showed:
/// seat 0 leads.
fn led_by_seat_0(seed: u8) -> Deal {
    let (mut deal, _) =
        Deal::new("t/laizi", Seed::from_bytes([seed; 32]), seat(0), rules(), 0).expect("deal");
    deal.call(seat(0), true, 0).expect("call");
    deal.rob(seat(1), false, 0).expect("no rob");
    deal.rob(seat(2), false, 0).expect("no rob");
    for s in [1, 2, 0] {
        deal.double(seat(s), false, 0).expect("no double");
    }
    deal.show(seat(0), false, 0).expect("no show");
    assert_eq!(deal.phase(), Phase::Playing);
    deal
}

/// The landlord's leads whose cards read more than one way, by cards.
fn ambiguous_leads(deal: &Deal) -> BTreeMap<RankCounts, Vec<WildPlay>> {
    let mut by_cards: BTreeMap<RankCounts, Vec<WildPlay>> = BTreeMap::new();
    for play in deal.wild_plays(seat(0)).expect("to lead") {
        by_cards.entry(play.cards).or_default().push(play);
    }
    by_cards.retain(|_, plays| plays.len() > 1);
    by_cards
}

#[test]
fn the_wild_rank_is_drawn_from_the_seed_once_the_landlord_is_known() {
    let seed = Seed::from_bytes([3; 32]);
    let (mut deal, _) = Deal::new("t/laizi", seed, seat(1), rules(), 0).expect("deal");
    for s in Seat::ALL {
        assert_eq!(deal.view(s).wild_rank, None);
    }
    let events = deal.call(seat(1), false, 0).expect("decline");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.body, EventBody::WildRankDrawn { .. }))
    );
    deal.call(seat(2), false, 0).expect("decline");
    let events = deal.call(seat(0), true, 0).expect("call");
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|e| match e.body {
            EventBody::LandlordChosen { .. } => Some("landlord"),
            EventBody::WildRankDrawn { .. } => Some("wild"),
            EventBody::TurnStarted { .. } => Some("turn"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["landlord", "wild", "turn"]);
    let drawn = events
        .iter()
        .find_map(|e| match e.body {
            EventBody::WildRankDrawn { rank } => Some(rank),
            _ => None,
        })
        .expect("drawn");
    assert_eq!(drawn, wild_rank(&seed));
    assert!(!drawn.is_joker());
    for s in Seat::ALL {
        assert_eq!(deal.view(s).wild_rank, Some(drawn));
    }
}

#[test]
fn a_play_that_reads_more_than_one_way_must_say_which() {
    let mut checked = 0;
    for seed in 0..40 {
        let deal = led_by_seat_0(seed);
        for (cards, plays) in ambiguous_leads(&deal).into_iter().take(3) {
            let picked = deal.hand(seat(0)).pick(&cards).expect("in hand").to_vec();
            let mut refused = deal.clone();
            let error = refused
                .play(seat(0), &picked, 0)
                .expect_err("reads more than one way");
            assert_eq!(refused, deal, "a refusal changes nothing");
            assert_eq!(error.code(), "ambiguous_reading");
            let ActionError::AmbiguousReading { readings } = &error else {
                panic!("{error:?}");
            };
            let readings: Vec<_> = readings.iter().map(|r| r.reading).collect();
            let listed: Vec<_> = plays.iter().map(|p| p.reading).collect();
            assert_eq!(readings, listed, "the error names every reading");
            let text = error.to_string();
            for play in &plays {
                assert!(text.contains(&reading_text(&play.reading)), "{text}");
            }
            // Each reading, stated, is played as stated.
            for play in &plays {
                let mut deal = deal.clone();
                let events = deal
                    .play_as(seat(0), &picked, Some(&play.meant), 0)
                    .expect("a stated reading");
                let played = events
                    .iter()
                    .find_map(|e| match &e.body {
                        EventBody::Played {
                            combination,
                            meant,
                            bomb,
                            ..
                        } => Some((*combination, *meant, *bomb)),
                        _ => None,
                    })
                    .expect("played");
                assert_eq!(
                    played,
                    (
                        play.reading.combination,
                        Some(play.meant),
                        play.reading.bomb
                    )
                );
                let trick = deal.trick().expect("on the table");
                assert_eq!(trick.reading(), play.reading);
                let view = deal.view(seat(1));
                let turn = view.turns.last().expect("a turn");
                assert_eq!(
                    (turn.combination, turn.meant, turn.bomb),
                    (
                        Some(play.reading.combination),
                        Some(play.meant),
                        play.reading.bomb
                    )
                );
                let multiplier = if play.reading.multiplier_factor() > 1 {
                    play.reading.multiplier_factor()
                } else {
                    1
                };
                assert_eq!(deal.multiplier(), multiplier);
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} ambiguous plays found");
}

#[test]
fn a_stated_reading_the_cards_cannot_make_is_refused() {
    let mut deal = led_by_seat_0(1);
    let wild = deal.wild_rank().expect("drawn");
    // One real card stated as another rank: only a wild card may stand in.
    let card = deal
        .hand(seat(0))
        .iter()
        .find(|c| c.rank() != wild && !c.rank().is_joker())
        .expect("a real card");
    let other = if card.rank().index() == 0 { "4" } else { "3" };
    let before = deal.clone();
    let error = deal
        .play_as(
            seat(0),
            &[card],
            Some(&RankCounts::parse(other).expect("ranks")),
            0,
        )
        .expect_err("a real card is itself");
    assert_eq!(error, ActionError::ReadingNotPossible);
    assert_eq!(error.code(), "reading_not_possible");
    // One card stated as two.
    let mut two = CardSet::from_iter([card]).rank_counts();
    assert!(two.try_add(card.rank()));
    let error = deal
        .play_as(seat(0), &[card], Some(&two), 0)
        .expect_err("one card is not two");
    assert_eq!(error, ActionError::ReadingNotPossible);
    assert_eq!(deal, before);
    // A single card reads one way: no need to say.
    deal.play(seat(0), &[card], 0).expect("a single");
}

#[test]
fn a_laizi_record_verifies_its_wild_rank_and_replays() {
    let mut deal = led_by_seat_0(7);
    while deal.settlement().is_none() {
        let now = deal.deadline_ms().expect("running");
        deal.check_timeout(now);
    }
    let record = deal.record().expect("finished");
    assert_eq!(record.wild_rank, deal.wild_rank());
    assert_eq!(record.verify(), Ok(()));
    assert_eq!(record.replay(), Ok(*deal.settlement().expect("settled")));
    assert!(
        record
            .turns
            .iter()
            .all(|t| t.cards.is_empty() || t.meant.is_some())
    );
    let mut forged = record.clone();
    forged.wild_rank = forged
        .wild_rank
        .and_then(|r| doudizhu_rules::Rank::from_index((r.index() + 1) % 13));
    assert_eq!(forged.verify(), Err(VerifyError::WildRankMismatch));
    forged.wild_rank = None;
    assert_eq!(forged.verify(), Err(VerifyError::WildRankMismatch));
}

#[test]
fn bomb_classes_are_counted_into_the_settlement() {
    // Over many random-ish deals played by "the first wild play each time", every
    // settlement's multiplier is the product the counts give.
    let mut soft = 0;
    for seed in 0..30 {
        let mut deal = led_by_seat_0(seed);
        let mut expected = 1u64;
        while deal.settlement().is_none() {
            let s = deal.to_act().expect("running");
            let plays = deal.wild_plays(s).expect("to act");
            // The biggest bomb-like play if any, else the first.
            let play = plays
                .iter()
                .find(|p| p.reading.bomb.is_some())
                .or(plays.first())
                .copied();
            match play {
                Some(play) => {
                    let cards = deal.hand(s).pick(&play.cards).expect("in hand").to_vec();
                    deal.play_as(s, &cards, Some(&play.meant), 0)
                        .expect("legal");
                    expected *= play.reading.multiplier_factor();
                    soft += usize::from(play.reading.bomb == Some(BombClass::Soft));
                }
                None => {
                    deal.pass(s, 0).expect("following");
                }
            }
        }
        let settlement = deal.settlement().expect("settled");
        let spring = if settlement.spring || settlement.anti_spring {
            2
        } else {
            1
        };
        assert_eq!(settlement.multiplier, expected * spring, "seed {seed}");
        assert_eq!(settlement.points.iter().sum::<i64>(), 0);
        assert_eq!(deal.record().expect("finished").replay(), Ok(*settlement));
    }
    assert!(soft > 0, "no soft bomb played");
}
