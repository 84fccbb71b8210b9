//! The rule sets `rob` (叫地主/抢地主, 加倍, 明牌) and `laizi` (癞子) through the public
//! API: whole deals over gRPC against a real ledger, the decisions each view asks for,
//! what a shown hand reveals (and what it does not), stated readings of wild plays, the
//! scores the ledger settles and records that verify and replay.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::HashMap;

use common::*;
use doudizhu_rules::{RankCounts, wild_plays, wild_rank};
use gamehub_proto::doudizhu as pb;
use tonic::Code;

fn decision(view: &pb::Table) -> pb::Decision {
    pb::Decision::try_from(view.decision).unwrap()
}

fn calls(view: &pb::Table) -> Vec<(usize, pb::CallKind)> {
    view.calls
        .iter()
        .map(|c| (seat(c.seat), pb::CallKind::try_from(c.call).unwrap()))
        .collect()
}

/// The finished deal's record, checked: it verifies (commitment, shuffle, wild rank) and
/// replays to its result.
async fn checked_record(driver: &Driver, deal_number: i32) -> pb::DealRecord {
    let record = driver
        .client(0)
        .get_deal_record(pb::GetDealRecordRequest {
            table_id: driver.table_id.clone(),
            deal_number,
        })
        .await
        .unwrap()
        .into_inner()
        .record
        .unwrap();
    let doc = gamehub_doudizhu_dealer::record::RecordDoc::from_json(&record.record_json).unwrap();
    doc.verify().unwrap();
    assert_eq!(doc.record.replay().unwrap(), doc.record.settlement);
    record
}

#[tokio::test]
async fn a_rob_deal_calls_robs_doubles_shows_and_scores_each_farmer_apart() {
    let world = World::start().await;
    let players = world.players().await;
    let driver = world
        .open_rule_set(players.clone(), "rob", &[find_seed(300, |_| true)], 0)
        .await;
    let view = driver.view(0).await;
    assert_eq!(view.rule_set, "rob");
    assert_eq!(view.phase, pb::Phase::Bidding as i32);
    let f = seat(view.first_bidder);
    let (second, third) = ((f + 1) % 3, (f + 2) % 3);
    assert_eq!(
        (seat(view.to_act), decision(&view)),
        (f, pb::Decision::Call)
    );

    // A bid is not this table's decision; nor is robbing before anyone called.
    let refused = driver.bid(f, 1).await;
    assert!(
        status_is(&refused, Code::FailedPrecondition)
            .message()
            .starts_with("wrong_decision:")
    );
    let refused = driver.rob(f, true).await;
    assert!(
        status_is(&refused, Code::FailedPrecondition)
            .message()
            .starts_with("wrong_decision:")
    );

    // f calls; the next seat robs (× 2); the third does not; f robs back (× 4).
    let view = driver.call(f, true).await.unwrap();
    assert_eq!(
        (seat(view.to_act), decision(&view)),
        (second, pb::Decision::Rob)
    );
    let view = driver.rob(second, true).await.unwrap();
    assert_eq!(view.multiplier, 2);
    let view = driver.rob(third, false).await.unwrap();
    assert_eq!((seat(view.to_act), decision(&view)), (f, pb::Decision::Rob));
    let view = driver.rob(f, true).await.unwrap();
    assert_eq!(
        calls(&view),
        [
            (f, pb::CallKind::Call),
            (second, pb::CallKind::Rob),
            (third, pb::CallKind::NoRob),
            (f, pb::CallKind::Rob),
        ]
    );
    assert!(view.calls.iter().all(|c| c.by == pb::Actor::Seat as i32));
    assert_eq!((seat(view.landlord), view.robs, view.multiplier), (f, 2, 4));
    assert_eq!(view.winning_bid, 0, "no points are bid");
    assert_eq!(view.hand.len(), 20, "the landlord took the kitty");
    assert_eq!(view.phase, pb::Phase::Doubling as i32);

    // Doubling: the farmers in turn from the seat after the landlord, then the landlord.
    assert_eq!(
        (seat(view.to_act), decision(&view)),
        (second, pb::Decision::Double)
    );
    let refused = driver.double(f, true).await;
    assert!(
        status_is(&refused, Code::FailedPrecondition)
            .message()
            .starts_with("not_your_turn:")
    );
    driver.double(second, true).await.unwrap();
    driver.double(third, false).await.unwrap();
    let view = driver.double(f, true).await.unwrap();
    assert_eq!(view.doubles.len(), 3);
    assert_eq!(
        (seat(view.to_act), decision(&view)),
        (f, pb::Decision::Show)
    );
    assert!(
        view.landlord_hand.is_empty(),
        "nothing is shown before the show"
    );

    // Before the show no other seat sees a card of the landlord's hand.
    let landlord_hand = view.hand.clone();
    for other in [second, third] {
        let theirs = driver.view(other).await;
        assert!(theirs.landlord_hand.is_empty());
        assert!(theirs.hand.iter().all(|c| !landlord_hand.contains(c)));
    }

    // The landlord shows (× 2): everyone, spectators included, sees its 20 cards, and
    // still only its own hand otherwise.
    let view = driver.show(f, true).await.unwrap();
    assert!(view.shown);
    assert_eq!(view.multiplier, 8);
    assert_eq!(view.phase, pb::Phase::Playing as i32);
    assert_eq!(decision(&view), pb::Decision::Play);
    let spectator = world
        .player("someone-else")
        .get_table(pb::GetTableRequest {
            table_id: driver.table_id.clone(),
            as_spectator: true,
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert!(spectator.hand.is_empty());
    assert_eq!(spectator.landlord_hand, landlord_hand);
    let farmer_hands: Vec<Vec<String>> = {
        let mut hands = Vec::new();
        for other in [second, third] {
            let theirs = driver.view(other).await;
            assert_eq!(theirs.landlord_hand, landlord_hand);
            hands.push(theirs.hand);
        }
        hands
    };
    // Neither farmer's cards reach the other farmer or the landlord.
    let own = driver.view(f).await;
    for (i, hand) in farmer_hands.iter().enumerate() {
        assert!(hand.iter().all(|c| !own.hand.contains(c)));
        assert!(hand.iter().all(|c| !farmer_hands[1 - i].contains(c)));
        assert!(hand.iter().all(|c| !own.landlord_hand.contains(c)));
    }

    // The landlord plays out alone: a spring (× 2). Multiplier 4 × 2 × 2 = 16; the
    // second seat doubled and so did the landlord: it pays 16 × 2 × 2 = 64, the third
    // 16 × 2 = 32, the landlord gets 96.
    let end = driver
        .play_out(|s, _, hints| if s == f { smallest(hints) } else { None })
        .await;
    let mut seen_shown = end.landlord_hand.clone();
    seen_shown.sort();
    let result = end.result.unwrap();
    assert_eq!(result.outcome, pb::Outcome::LandlordWon as i32);
    assert!(result.spring && result.shown);
    assert_eq!(
        (result.rule_set.as_str(), result.robs, result.multiplier),
        ("rob", 2, 16)
    );
    let mut doubled = [false; 3];
    doubled[second] = true;
    doubled[f] = true;
    assert_eq!(result.doubled, doubled.to_vec());
    let mut expected = [0i64; 3];
    expected[f] = 96;
    expected[second] = -64;
    expected[third] = -32;
    assert_eq!(result.points, expected.to_vec());

    world.settled(&format!("{}:1", driver.table_id)).await;
    world.check_ledger(&players, expected).await;
    let record = checked_record(&driver, 1).await;
    assert_eq!(record.rule_set, "rob");
    assert_eq!(record.calls.len(), 4);
    assert_eq!(record.doubles.len(), 3);
    assert!(record.shown);
    assert!(record.wild_rank.is_empty());
    world.finish().await;
}

/// A laizi seed where every seat's hand with the kitty can make a play of more than one
/// reading (so whoever becomes landlord has one to state).
fn ambiguous_laizi_seed() -> doudizhu_rules::Seed {
    let mut tries = 0u64;
    loop {
        let seed = find_seed(700 + tries, |_| true);
        tries += 1;
        let dealt = doudizhu_rules::deal(&seed);
        let wild = wild_rank(&seed);
        let kitty: RankCounts = dealt.kitty.rank_counts();
        let every_seat = dealt.hands.iter().all(|hand| {
            let mut cards = hand.rank_counts();
            for rank in kitty.iter() {
                cards.try_add(rank);
            }
            ambiguous_play(&cards, wild).is_some()
        });
        if every_seat {
            return seed;
        }
        assert!(tries < 10_000, "no laizi seed with ambiguous plays");
    }
}

/// Cards of `hand` that read more than one way under `wild`, with their readings' meants.
fn ambiguous_play(
    hand: &RankCounts,
    wild: doudizhu_rules::Rank,
) -> Option<(RankCounts, Vec<RankCounts>)> {
    let mut by_cards: HashMap<RankCounts, Vec<RankCounts>> = HashMap::new();
    for play in wild_plays(hand, wild, None) {
        by_cards.entry(play.cards).or_default().push(play.meant);
    }
    by_cards
        .into_iter()
        .filter(|(_, meants)| meants.len() > 1)
        .min_by_key(|(cards, _)| (cards.len(), *cards))
}

#[tokio::test]
async fn a_laizi_deal_draws_the_wild_rank_and_plays_only_stated_readings_of_ambiguous_cards() {
    let world = World::start().await;
    let players = world.players().await;
    let seed = ambiguous_laizi_seed();
    let driver = world
        .open_rule_set(players.clone(), "laizi", &[seed], 0)
        .await;
    let view = driver.view(0).await;
    assert_eq!(view.rule_set, "laizi");
    assert!(
        view.wild_rank.is_empty(),
        "no wild rank before the landlord is known"
    );
    let f = seat(view.first_bidder);
    // f calls, nobody robs: f is landlord with no rob.
    driver.call(f, true).await.unwrap();
    driver.rob((f + 1) % 3, false).await.unwrap();
    let view = driver.rob((f + 2) % 3, false).await.unwrap();
    assert_eq!((seat(view.landlord), view.robs, view.multiplier), (f, 0, 1));
    let wild = wild_rank(&seed);
    assert_eq!(
        view.wild_rank,
        wild.symbol().to_string(),
        "drawn from the seed"
    );
    for s in [(f + 1) % 3, (f + 2) % 3, f] {
        let view = driver.double(s, false).await.unwrap();
        assert_eq!(view.wild_rank, wild.symbol().to_string());
    }
    let view = driver.show(f, false).await.unwrap();
    assert!(!view.shown && view.landlord_hand.is_empty());

    // The landlord's ambiguous cards: refused without a reading, and with one they
    // cannot make; played with a stated one.
    let hand = cards_of(&view.hand).rank_counts();
    let (cards, meants) = ambiguous_play(&hand, wild).expect("the seed's landlord has one");
    let text = rank_text(&cards);
    let refused = driver.play(f, &text).await;
    let status = status_is(&refused, Code::InvalidArgument);
    assert!(
        status.message().starts_with("ambiguous_reading:"),
        "{status:?}"
    );
    let hints = driver.hint(f).await.unwrap();
    let offered: Vec<&str> = hints
        .plays
        .iter()
        .filter(|h| h.ranks == text)
        .map(|h| h.meant.as_str())
        .collect();
    assert_eq!(offered.len(), meants.len(), "Hint lists each reading once");
    let impossible = "XD";
    let refused = driver.play_meant(f, &text, impossible).await;
    assert!(
        status_is(&refused, Code::InvalidArgument)
            .message()
            .starts_with("reading_not_possible:")
    );
    let meant = rank_text(&meants[0]);
    let view = driver.play_meant(f, &text, &meant).await.unwrap();
    let trick = view.trick.clone().expect("the play is on the table");
    assert_eq!(
        (trick.ranks.as_str(), trick.meant.as_str()),
        (text.as_str(), meant.as_str())
    );

    // The farmers pass; the landlord plays out, each play as Hint reads it.
    let mut end = view;
    for _ in 0..60 {
        if end.phase != pb::Phase::Playing as i32 {
            break;
        }
        let s = seat(end.to_act);
        end = if s == f {
            let hints = driver.hint(f).await.unwrap();
            let first = hints.plays.first().expect("a leader has a play");
            driver
                .play_meant(f, &first.ranks, &first.meant)
                .await
                .unwrap()
        } else {
            driver.pass(s).await.unwrap()
        };
    }
    let end = driver.view(f).await;
    let result = end.result.unwrap();
    assert_eq!(result.outcome, pb::Outcome::LandlordWon as i32);
    assert_eq!(result.rule_set, "laizi");
    let points = [result.points[0], result.points[1], result.points[2]];
    assert_eq!(points.iter().sum::<i64>(), 0);
    world.settled(&format!("{}:1", driver.table_id)).await;
    world.check_ledger(&players, points).await;
    let record = checked_record(&driver, 1).await;
    assert_eq!(record.wild_rank, wild.symbol().to_string());
    assert!(
        record
            .turns
            .iter()
            .all(|t| t.cards.is_empty() || !t.meant.is_empty())
    );
    world.finish().await;
}
