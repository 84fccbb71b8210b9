//! The `rob` rule set through the Deal: the auction (叫地主/抢地主), doubling (加倍),
//! showing (明牌), their errors, timeouts and auto-play, escape, records, and stored
//! deals from before rule sets.

use doudizhu_rules::{
    ActionError, Actor, AuctionCall, AutoPlayer, Bid, CardSet, Choice, Deal, DealRules, Decision,
    Event, EventBody, Outcome, Phase, RuleSet, Seat, SeatCall, SeatDouble, SeatView, Seed,
    TimeControl, TimeoutMoves,
};

const TURN_MS: u64 = 15_000;
const AUTO_MS: u64 = 500;

fn seat(n: u8) -> Seat {
    Seat::new(n).expect("seat")
}

fn rules(rule_set: RuleSet) -> DealRules {
    DealRules {
        points_base: 10,
        time: TimeControl {
            turn_ms: TURN_MS,
            auto_turn_ms: AUTO_MS,
        },
        rule_set,
    }
}

fn new_deal(rule_set: RuleSet, first_bidder: Seat) -> Deal {
    Deal::new(
        "table-9/deal-4",
        Seed::from_bytes([5; 32]),
        first_bidder,
        rules(rule_set),
        0,
    )
    .expect("valid deal")
    .0
}

/// A `rob` deal where seat 0 called and nobody robbed: seat 0 is landlord, doubling.
fn called_deal() -> Deal {
    let mut deal = new_deal(RuleSet::Rob, seat(0));
    deal.call(seat(0), true, 0).expect("call");
    deal.rob(seat(1), false, 0).expect("no rob");
    deal.rob(seat(2), false, 0).expect("no rob");
    deal
}

/// A `rob` deal with seat 0 landlord, nobody doubled, the hand shown or not: playing.
fn playing_deal(show: bool) -> Deal {
    let mut deal = called_deal();
    for s in [1, 2, 0] {
        deal.double(seat(s), false, 0).expect("no double");
    }
    deal.show(seat(0), show, 0).expect("show or not");
    deal
}

fn bodies(events: &[Event]) -> Vec<&EventBody> {
    events.iter().map(|e| &e.body).collect()
}

fn multipliers(events: &[Event]) -> Vec<u64> {
    events
        .iter()
        .filter_map(|e| match e.body {
            EventBody::MultiplierChanged { multiplier } => Some(multiplier),
            _ => None,
        })
        .collect()
}

#[test]
fn the_last_seat_to_call_or_rob_is_landlord_and_each_rob_doubles() {
    let mut deal = new_deal(RuleSet::Rob, seat(0));
    assert_eq!(deal.decision(), Some((seat(0), Decision::Call)));
    let events = deal.call(seat(0), true, 0).expect("call");
    assert!(bodies(&events).contains(&&EventBody::Called {
        seat: seat(0),
        call: true,
        by: Actor::Seat
    }));
    assert_eq!(deal.decision(), Some((seat(1), Decision::Rob)));
    let events = deal.rob(seat(1), true, 0).expect("rob");
    assert_eq!(multipliers(&events), [2]);
    deal.rob(seat(2), false, 0).expect("no rob");
    assert_eq!(
        deal.decision(),
        Some((seat(0), Decision::Rob)),
        "the caller's last word"
    );
    let events = deal.rob(seat(0), true, 0).expect("rob back");
    assert_eq!(multipliers(&events), [4]);
    assert!(events.iter().any(|e| matches!(&e.body,
        EventBody::LandlordChosen { seat: s, bid: Bid::Pass, robs: 2, kitty } if *s == seat(0) && kitty.len() == 3)));
    assert_eq!(deal.landlord(), Some(seat(0)));
    assert_eq!((deal.robs(), deal.multiplier()), (2, 4));
    assert_eq!(deal.phase(), Phase::Doubling);
    assert_eq!(deal.decision(), Some((seat(1), Decision::Double)));
    assert_eq!(deal.hand(seat(0)).len(), 20);
    assert_eq!(deal.wild_rank(), None, "no wild rank in rob");
    let calls: Vec<AuctionCall> = deal.view(seat(2)).calls.iter().map(|c| c.call).collect();
    assert_eq!(
        calls,
        [
            AuctionCall::Call,
            AuctionCall::Rob,
            AuctionCall::NoRob,
            AuctionCall::Rob
        ]
    );
}

#[test]
fn nobody_calling_is_a_redeal() {
    let mut deal = new_deal(RuleSet::Rob, seat(2));
    deal.call(seat(2), false, 0).expect("decline");
    deal.call(seat(0), false, 0).expect("decline");
    let events = deal.call(seat(1), false, 0).expect("decline");
    let s = deal.settlement().expect("settled");
    assert_eq!(s.outcome, Outcome::Redeal);
    assert_eq!((s.points, s.rule_set), ([0; 3], RuleSet::Rob));
    assert!(matches!(
        events.last().map(|e| &e.body),
        Some(EventBody::DealEnded { hands_left, .. }) if hands_left.is_empty()
    ));
}

#[test]
fn a_seat_that_calls_after_both_others_declined_is_landlord_at_once() {
    let mut deal = new_deal(RuleSet::Rob, seat(1));
    deal.call(seat(1), false, 0).expect("decline");
    deal.call(seat(2), false, 0).expect("decline");
    deal.call(seat(0), true, 0).expect("call");
    assert_eq!(deal.landlord(), Some(seat(0)));
    assert_eq!(deal.robs(), 0);
}

#[test]
fn the_wrong_decision_for_the_moment_is_refused_and_changes_nothing() {
    let mut deal = new_deal(RuleSet::Rob, seat(0));
    let before = deal.clone();
    let expect_call = Err(ActionError::WrongDecision {
        expected: Decision::Call,
    });
    assert_eq!(deal.rob(seat(0), true, 0), expect_call);
    assert_eq!(deal.bid(seat(0), Bid::Three, 0), expect_call);
    assert_eq!(
        deal.double(seat(0), true, 0),
        Err(ActionError::WrongPhase {
            phase: Phase::Bidding
        })
    );
    assert_eq!(
        deal.call(seat(1), true, 0),
        Err(ActionError::NotYourTurn { expected: seat(0) })
    );
    assert_eq!(deal, before);

    deal.call(seat(0), true, 0).expect("call");
    let error = deal.call(seat(1), true, 0).expect_err("robbing now");
    assert_eq!(
        error,
        ActionError::WrongDecision {
            expected: Decision::Rob
        }
    );
    assert_eq!(error.code(), "wrong_decision");
    assert_eq!(error.to_string(), "the decision now is to rob");

    // Classic has no calls; rob has no bids.
    let mut classic = new_deal(RuleSet::Classic, seat(0));
    assert_eq!(
        classic.call(seat(0), true, 0),
        Err(ActionError::WrongDecision {
            expected: Decision::Bid
        })
    );
    assert_eq!(classic.decision(), Some((seat(0), Decision::Bid)));
}

#[test]
fn farmers_double_in_turn_from_the_seat_after_the_landlord_then_the_landlord() {
    let mut deal = new_deal(RuleSet::Rob, seat(0));
    deal.call(seat(0), false, 0).expect("decline");
    deal.call(seat(1), true, 0).expect("call");
    deal.rob(seat(2), false, 0).expect("no rob");
    assert_eq!(deal.landlord(), Some(seat(1)));
    assert_eq!(
        deal.double(seat(0), true, 0),
        Err(ActionError::NotYourTurn { expected: seat(2) })
    );
    assert_eq!(
        deal.show(seat(1), true, 0),
        Err(ActionError::WrongPhase {
            phase: Phase::Doubling
        })
    );
    let events = deal.double(seat(2), true, 5).expect("double");
    assert!(bodies(&events).contains(&&EventBody::Doubled {
        seat: seat(2),
        double: true,
        by: Actor::Seat
    }));
    assert!(
        multipliers(&events).is_empty(),
        "a double is not the deal's multiplier"
    );
    deal.double(seat(0), false, 5).expect("no double");
    assert_eq!(deal.decision(), Some((seat(1), Decision::Double)));
    deal.double(seat(1), true, 5).expect("landlord doubles");
    assert_eq!(deal.phase(), Phase::Showing);
    assert_eq!(deal.decision(), Some((seat(1), Decision::Show)));
    assert_eq!(
        deal.view(seat(0)).doubles,
        [
            SeatDouble {
                seat: seat(2),
                double: true,
                by: Actor::Seat,
            },
            SeatDouble {
                seat: seat(0),
                double: false,
                by: Actor::Seat,
            },
            SeatDouble {
                seat: seat(1),
                double: true,
                by: Actor::Seat,
            },
        ]
    );
    let events = deal.show(seat(1), false, 5).expect("no show");
    assert!(bodies(&events).contains(&&EventBody::Showed {
        seat: seat(1),
        show: false,
        by: Actor::Seat
    }));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.body, EventBody::HandShown { .. }))
    );
    assert_eq!(deal.decision(), Some((seat(1), Decision::Play)));
    assert!(
        events.iter().any(|e| matches!(e.body,
        EventBody::TurnStarted { phase: Phase::Playing, lead: true, seat: s, .. } if s == seat(1)))
    );
}

#[test]
fn showing_doubles_and_shows_the_landlords_remaining_cards_to_every_seat() {
    let mut deal = called_deal();
    for s in [1, 2, 0] {
        deal.double(seat(s), false, 0).expect("no double");
    }
    for s in Seat::ALL {
        assert_eq!(deal.view(s).landlord_hand, None, "nothing before the show");
    }
    let events = deal.show(seat(0), true, 0).expect("show");
    let shown = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::HandShown { seat: s, cards } if *s == seat(0) => Some(cards.clone()),
            _ => None,
        })
        .expect("hand shown");
    assert!(
        events
            .iter()
            .all(|e| e.audience == doudizhu_rules::Audience::All)
    );
    assert_eq!(shown.len(), 20);
    assert_eq!(
        shown.iter().copied().collect::<CardSet>(),
        deal.hand(seat(0))
    );
    assert_eq!(multipliers(&events), [2]);
    assert_eq!(deal.multiplier(), 2);
    // The landlord plays; every seat sees what it has left, no farmer's cards.
    let card = deal.hand(seat(0)).iter().last().expect("a card");
    deal.play(seat(0), &[card], 0).expect("lead");
    for s in Seat::ALL {
        let view = deal.view(s);
        let left: CardSet = view
            .landlord_hand
            .clone()
            .expect("shown")
            .into_iter()
            .collect();
        assert_eq!(left, deal.hand(seat(0)));
        assert_eq!(left.len(), 19);
        for farmer in [seat(1), seat(2)].into_iter().filter(|f| *f != s) {
            let text = serde_json::to_string(&view).expect("serializes");
            for card in deal.hand(farmer).iter() {
                assert!(
                    !text.contains(&format!("\"{card}\"")),
                    "seat {s} sees a card of seat {farmer}"
                );
            }
        }
    }
    assert_eq!(deal.view(seat(1)).shown, Some(true));
}

#[test]
fn without_a_show_the_landlords_hand_stays_hidden() {
    let deal = playing_deal(false);
    for s in Seat::ALL {
        assert_eq!(deal.view(s).landlord_hand, None);
        assert_eq!(deal.view(s).shown, Some(false));
    }
    assert_eq!(deal.multiplier(), 1);
}

fn timeout(deal: &mut Deal) -> Vec<Event> {
    let now = deal.deadline_ms().expect("running");
    deal.check_timeout(now)
}

#[test]
fn a_timeout_declines_to_call() {
    let mut deal = new_deal(RuleSet::Rob, seat(0));
    let events = timeout(&mut deal);
    assert!(bodies(&events).contains(&&EventBody::Called {
        seat: seat(0),
        call: false,
        by: Actor::Timeout
    }));
    timeout(&mut deal);
    timeout(&mut deal);
    assert_eq!(deal.settlement().map(|s| s.outcome), Some(Outcome::Redeal));
}

#[test]
fn a_timeout_does_not_rob_double_or_show_and_two_in_a_row_mean_auto_play() {
    let mut deal = new_deal(RuleSet::Rob, seat(0));
    deal.call(seat(0), true, 0).expect("call");
    let events = timeout(&mut deal);
    assert!(bodies(&events).contains(&&EventBody::Robbed {
        seat: seat(1),
        rob: false,
        by: Actor::Timeout
    }));
    timeout(&mut deal);
    assert_eq!(deal.landlord(), Some(seat(0)));
    assert_eq!(deal.robs(), 0);
    // Seat 1's second timeout in a row: on auto-play from its double on.
    let events = timeout(&mut deal);
    assert!(bodies(&events).contains(&&EventBody::Doubled {
        seat: seat(1),
        double: false,
        by: Actor::Timeout
    }));
    assert!(deal.is_on_auto_play(seat(1)));
    timeout(&mut deal);
    timeout(&mut deal);
    let events = timeout(&mut deal);
    assert!(bodies(&events).contains(&&EventBody::Showed {
        seat: seat(0),
        show: false,
        by: Actor::Timeout
    }));
    assert!(deal.doubles().iter().all(|d| !d.double));
    assert_eq!(deal.shown(), Some(false));
    assert_eq!(deal.decision(), Some((seat(0), Decision::Play)));
    // The landlord's double and show were its first two timeouts.
    assert!(deal.is_on_auto_play(seat(0)));
}

/// An auto-player that says yes to everything but never plays (a bot seat's way).
struct Eager;

impl AutoPlayer for Eager {
    fn choose(&self, _view: &SeatView) -> Option<Choice> {
        None
    }
    fn call(&self, view: &SeatView) -> bool {
        assert_eq!(view.decision, Some(Decision::Call));
        true
    }
    fn rob(&self, view: &SeatView) -> bool {
        assert_eq!(view.decision, Some(Decision::Rob));
        true
    }
    fn double(&self, view: &SeatView) -> bool {
        assert_eq!(view.decision, Some(Decision::Double));
        assert_eq!(view.to_act, Some(view.seat));
        true
    }
    fn show(&self, view: &SeatView) -> bool {
        assert_eq!(view.decision, Some(Decision::Show));
        true
    }
}

fn actors(events: &[Event]) -> Vec<Actor> {
    events
        .iter()
        .filter_map(|e| match e.body {
            EventBody::Called { by, .. }
            | EventBody::Robbed { by, .. }
            | EventBody::Doubled { by, .. }
            | EventBody::Showed { by, .. } => Some(by),
            _ => None,
        })
        .collect()
}

#[test]
fn an_auto_player_decides_every_decision_of_a_seat_on_auto_play() {
    let mut deal = new_deal(RuleSet::Rob, seat(2));
    for s in Seat::ALL {
        deal.set_auto_play(s, true, 0).expect("auto");
    }
    let events = deal.auto_play_pending_with(0, &Eager);
    // 2 calls, 0 and 1 rob, 2 robs back: three robs; all double; shown; then the
    // timeout moves play the deal out.
    assert_eq!(actors(&events).len(), 4 + 3 + 1);
    assert!(actors(&events).iter().all(|a| *a == Actor::AutoPlay));
    let s = deal.settlement().expect("played out");
    assert!(matches!(
        s.outcome,
        Outcome::LandlordWon | Outcome::FarmersWon { .. }
    ));
    assert_eq!(s.landlord, Some(seat(2)));
    assert_eq!((s.robs, s.doubled, s.shown), (3, [true; 3], true));
    assert_eq!(s.points.iter().sum::<i64>(), 0);
    // 2^3 robs × 2 shown, bombs none (singles only), maybe a spring: 16 or 32.
    assert!(s.multiplier == 16 || s.multiplier == 32, "{}", s.multiplier);
}

#[test]
fn the_default_auto_player_declines_every_decision() {
    let mut deal = new_deal(RuleSet::Rob, seat(0));
    for s in Seat::ALL {
        deal.set_auto_play(s, true, 0).expect("auto");
    }
    let events = deal.auto_play_pending_with(0, &TimeoutMoves);
    assert_eq!(actors(&events).len(), 3);
    assert_eq!(deal.settlement().map(|s| s.outcome), Some(Outcome::Redeal));
    // Once a seat has called, the default neither robs, doubles nor shows.
    let mut deal = new_deal(RuleSet::Rob, seat(0));
    deal.call(seat(0), true, 0).expect("call");
    for s in Seat::ALL {
        deal.set_auto_play(s, true, 0).expect("auto");
    }
    deal.auto_play_pending(0);
    let s = deal.settlement().expect("played out");
    assert_eq!((s.robs, s.doubled, s.shown), (0, [false; 3], false));
}

#[test]
fn escape_before_a_call_costs_three_and_after_costs_three_times_base_times_multiplier() {
    let mut deal = new_deal(RuleSet::Rob, seat(0));
    deal.call(seat(0), false, 0).expect("decline");
    deal.escape(seat(1), 0).expect("escape");
    assert_eq!(deal.settlement().expect("settled").points, [0, -3, 0]);

    // One rob, shown, every seat doubled: base 10 × multiplier 4 × 3, doubles not counted.
    let mut deal = new_deal(RuleSet::Rob, seat(0));
    deal.call(seat(0), true, 0).expect("call");
    deal.rob(seat(1), true, 0).expect("rob");
    deal.rob(seat(2), false, 0).expect("no rob");
    deal.rob(seat(0), false, 0).expect("no rob back");
    assert_eq!(deal.landlord(), Some(seat(1)));
    for s in [2, 0, 1] {
        deal.double(seat(s), true, 0).expect("double");
    }
    deal.show(seat(1), true, 0).expect("show");
    deal.escape(seat(2), 0).expect("escape");
    let s = deal.settlement().expect("settled");
    assert_eq!(s.points, [0, 0, -120]);
    assert_eq!((s.robs, s.shown, s.doubled), (1, true, [true; 3]));
    // And the record replays to it, escape included.
    let record = deal.record().expect("finished");
    assert_eq!(record.replay(), Ok(*s));
}

#[test]
fn a_rob_record_holds_every_decision_and_replays() {
    let mut deal = new_deal(RuleSet::Rob, seat(1));
    deal.call(seat(1), true, 0).expect("call");
    deal.rob(seat(2), true, 0).expect("rob");
    deal.rob(seat(0), false, 0).expect("no rob");
    deal.rob(seat(1), true, 0).expect("rob back");
    for s in [2, 0, 1] {
        deal.double(seat(s), s == 0, 0).expect("double or not");
    }
    deal.show(seat(1), true, 0).expect("show");
    while deal.settlement().is_none() {
        let now = deal.deadline_ms().expect("running");
        deal.check_timeout(now);
    }
    let record = deal.record().expect("finished");
    assert_eq!(record.verify(), Ok(()));
    assert_eq!(
        record.calls,
        [
            SeatCall {
                seat: seat(1),
                call: AuctionCall::Call
            },
            SeatCall {
                seat: seat(2),
                call: AuctionCall::Rob
            },
            SeatCall {
                seat: seat(0),
                call: AuctionCall::NoRob
            },
            SeatCall {
                seat: seat(1),
                call: AuctionCall::Rob
            },
        ]
    );
    assert_eq!(record.doubles.len(), 3);
    assert_eq!(record.shown, Some(true));
    assert_eq!(record.wild_rank, None);
    assert!(record.bids.is_empty());
    let settlement = *deal.settlement().expect("settled");
    assert_eq!(record.replay(), Ok(settlement));
    assert_eq!(
        (settlement.robs, settlement.doubled),
        (2, [true, false, false])
    );
}

#[test]
fn in_classic_and_rob_a_play_means_its_own_cards() {
    let mut deal = playing_deal(false);
    let card = deal.hand(seat(0)).iter().next().expect("a card");
    let own = CardSet::from_iter([card]).rank_counts();
    let other = doudizhu_rules::RankCounts::parse(if card.rank() == doudizhu_rules::Rank::Three {
        "4"
    } else {
        "3"
    })
    .expect("ranks");
    let before = deal.clone();
    let error = deal
        .play_as(seat(0), &[card], Some(&other), 0)
        .expect_err("not what the card is");
    assert_eq!(error, ActionError::ReadingNotPossible);
    assert_eq!(error.code(), "reading_not_possible");
    assert_eq!(deal, before);
    let events = deal
        .play_as(seat(0), &[card], Some(&own), 0)
        .expect("as itself");
    assert!(events.iter().any(|e| matches!(
        &e.body,
        EventBody::Played {
            meant: None,
            bomb: None,
            ..
        }
    )));
}

/// Stored before rule sets: no `rule_set` in the rules, no `robs` in `landlord_chosen`,
/// none of the new settlement, view or record fields. All still load, as `classic`.
#[test]
fn deals_views_records_and_events_stored_before_rule_sets_still_load() {
    fn strip(value: &mut serde_json::Value, keys: &[&str]) {
        match value {
            serde_json::Value::Object(map) => {
                for key in keys {
                    map.remove(*key);
                }
                map.values_mut().for_each(|v| strip(v, keys));
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| strip(v, keys)),
            _ => {}
        }
    }
    let new_keys = [
        "rule_set",
        "robs",
        "doubled",
        "shown",
        "soft_bombs",
        "wild_bombs",
        "decision",
        "calls",
        "doubles",
        "landlord_hand",
        "wild_rank",
        "meant",
        "bomb",
    ];
    let mut deal = new_deal(RuleSet::Classic, seat(0));
    let mut events = deal.bid(seat(0), Bid::Three, 0).expect("bid");
    deal.escape(seat(1), 0).expect("escape");
    let mut old = serde_json::to_value(&deal).expect("serializes");
    strip(&mut old, &new_keys);
    assert_eq!(serde_json::from_value::<Deal>(old).expect("loads"), deal);

    let view = deal.view(seat(2));
    let mut old = serde_json::to_value(&view).expect("serializes");
    strip(&mut old, &new_keys);
    let loaded: SeatView = serde_json::from_value(old).expect("loads");
    assert_eq!(loaded.rule_set, RuleSet::Classic);
    assert_eq!(loaded.settlement, view.settlement);

    let record = deal.record().expect("finished");
    let mut old = serde_json::to_value(&record).expect("serializes");
    strip(&mut old, &new_keys);
    let loaded: doudizhu_rules::DealRecord = serde_json::from_value(old).expect("loads");
    assert_eq!(loaded, record);

    events.retain(|e| matches!(e.body, EventBody::LandlordChosen { .. }));
    let mut old = serde_json::to_value(&events[0]).expect("serializes");
    strip(&mut old, &new_keys);
    assert_eq!(
        serde_json::from_value::<Event>(old).expect("loads"),
        events[0]
    );
}

#[test]
fn the_new_events_serialize_with_snake_case_tags() {
    let mut deal = called_deal();
    let events = deal.double(seat(1), true, 0).expect("double");
    let json = serde_json::to_string(&events[0]).expect("serializes");
    assert_eq!(
        json,
        r#"{"audience":"all","body":{"type":"doubled","seat":1,"double":true,"by":"seat"}}"#
    );
    let view = serde_json::to_value(deal.view(seat(0))).expect("serializes");
    assert_eq!(view["decision"], "double");
    assert_eq!(view["phase"], "doubling");
    assert_eq!(view["rule_set"], "rob");
}
