//! The deal state machine: bidding, play, timeouts, auto-play, escape, views, record.

use std::cell::Cell;

use doudizhu_rules::{
    ActionError, Actor, Audience, AutoPlayer, Bid, Card, CardSet, Choice, Deal, DealRules,
    EventBody, Kind, Outcome, Phase, RankCounts, RuleSet, Seat, SeatView, Seed, TimeControl,
    next_first_bidder,
};

const TURN_MS: u64 = 15_000;
const AUTO_MS: u64 = 500;

fn seat(n: u8) -> Seat {
    Seat::new(n).expect("seat")
}

fn rules() -> DealRules {
    DealRules {
        points_base: 10,
        time: TimeControl {
            turn_ms: TURN_MS,
            auto_turn_ms: AUTO_MS,
        },
        rule_set: RuleSet::Classic,
    }
}

fn new_deal(seed_byte: u8, first_bidder: Seat) -> Deal {
    Deal::new(
        "table-7/deal-1",
        Seed::from_bytes([seed_byte; 32]),
        first_bidder,
        rules(),
        0,
    )
    .expect("valid deal")
    .0
}

/// A deal where seat 0 bid `bid` and became landlord, at time 0.
fn landlord_deal(bid: Bid) -> Deal {
    let mut deal = new_deal(1, seat(0));
    deal.bid(seat(0), bid, 0).expect("bid");
    if bid != Bid::Three {
        deal.bid(seat(1), Bid::Pass, 0).expect("pass");
        deal.bid(seat(2), Bid::Pass, 0).expect("pass");
    }
    assert_eq!(deal.landlord(), Some(seat(0)));
    deal
}

fn lowest(deal: &Deal, seat: Seat) -> Card {
    deal.hand(seat).iter().next().expect("a card")
}

fn highest(deal: &Deal, seat: Seat) -> Card {
    deal.hand(seat).iter().last().expect("a card")
}

#[test]
fn the_opening_events_show_each_seat_only_its_own_hand() {
    let (deal, events) =
        Deal::new("t/d", Seed::from_bytes([3; 32]), seat(2), rules(), 1_000).expect("deal");
    let mut dealt_to = Vec::new();
    for event in &events {
        if let EventBody::HandDealt { seat, cards } = &event.body {
            assert_eq!(event.audience, Audience::Seat(*seat));
            assert_eq!(cards.len(), 17);
            assert_eq!(cards.iter().copied().collect::<CardSet>(), deal.hand(*seat));
            dealt_to.push(*seat);
        } else {
            assert_eq!(event.audience, Audience::All);
        }
    }
    assert_eq!(dealt_to, Seat::ALL);
    assert!(
        matches!(events[0].body, EventBody::DealStarted { first_bidder, .. } if first_bidder == seat(2))
    );
    assert_eq!(deal.to_act(), Some(seat(2)));
    assert_eq!(deal.deadline_ms(), Some(1_000 + TURN_MS));
}

#[test]
fn nobody_sees_the_kitty_before_a_landlord_is_chosen() {
    let mut deal = new_deal(1, seat(0));
    for s in Seat::ALL {
        assert_eq!(deal.view(s).kitty, None);
        assert_eq!(deal.view(s).hand.len(), 17);
    }
    let events = deal.bid(seat(0), Bid::Three, 5).expect("bid");
    let kitty = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::LandlordChosen { seat: s, kitty, .. } if *s == seat(0) => {
                Some(kitty.clone())
            }
            _ => None,
        })
        .expect("landlord chosen");
    assert_eq!(kitty.len(), 3);
    for s in Seat::ALL {
        assert_eq!(deal.view(s).kitty.as_ref(), Some(&kitty));
    }
    assert_eq!(deal.hand(seat(0)).len(), 20);
    assert!(kitty.iter().all(|c| deal.hand(seat(0)).contains(*c)));
    assert_eq!(deal.view(seat(1)).cards_left, [20, 17, 17]);
}

#[test]
fn a_bid_of_three_ends_bidding_and_the_landlord_leads() {
    let mut deal = new_deal(1, seat(1));
    deal.bid(seat(1), Bid::One, 0).expect("bid");
    deal.bid(seat(2), Bid::Three, 0).expect("bid");
    assert_eq!(deal.phase(), Phase::Playing);
    assert_eq!(deal.landlord(), Some(seat(2)));
    assert_eq!(deal.to_act(), Some(seat(2)));
    assert!(deal.trick().is_none());
}

#[test]
fn the_highest_bidder_becomes_landlord() {
    let mut deal = new_deal(1, seat(0));
    deal.bid(seat(0), Bid::One, 0).expect("bid");
    deal.bid(seat(1), Bid::Two, 0).expect("bid");
    deal.bid(seat(2), Bid::Pass, 0).expect("pass");
    assert_eq!(deal.landlord(), Some(seat(1)));
}

#[test]
fn all_passing_ends_the_deal_for_a_redeal() {
    let mut deal = new_deal(1, seat(0));
    deal.bid(seat(0), Bid::Pass, 0).expect("pass");
    deal.bid(seat(1), Bid::Pass, 0).expect("pass");
    let events = deal.bid(seat(2), Bid::Pass, 0).expect("pass");
    assert_eq!(deal.phase(), Phase::Finished);
    let settlement = deal.settlement().expect("settled");
    assert_eq!(settlement.outcome, Outcome::Redeal);
    assert_eq!(settlement.points, [0, 0, 0]);
    assert!(matches!(
        events.last().map(|e| &e.body),
        Some(EventBody::DealEnded { .. })
    ));
    assert_eq!(next_first_bidder(seat(0)), seat(1));
    assert_eq!(next_first_bidder(seat(2)), seat(0));
}

#[test]
fn refused_actions_leave_the_deal_unchanged() {
    let mut deal = new_deal(1, seat(0));
    let before = deal.clone();
    let some_card = lowest(&deal, seat(0));
    assert_eq!(
        deal.bid(seat(1), Bid::One, 0),
        Err(ActionError::NotYourTurn { expected: seat(0) })
    );
    assert_eq!(
        deal.play(seat(0), &[some_card], 0),
        Err(ActionError::WrongPhase {
            phase: Phase::Bidding
        })
    );
    assert!(matches!(
        deal.bid_points(seat(0), 4, 0),
        Err(ActionError::BidOutOfRange(_))
    ));
    assert_eq!(deal, before);

    deal.bid(seat(0), Bid::Two, 0).expect("bid");
    let before = deal.clone();
    assert_eq!(
        deal.bid(seat(1), Bid::One, 0),
        Err(ActionError::BidNotHigher { highest: 2 })
    );
    assert_eq!(
        deal.bid(seat(1), Bid::Two, 0),
        Err(ActionError::BidNotHigher { highest: 2 })
    );
    assert_eq!(deal, before);

    deal.bid(seat(1), Bid::Pass, 0).expect("pass");
    deal.bid(seat(2), Bid::Pass, 0).expect("pass");
    let before = deal.clone();
    assert_eq!(deal.pass(seat(0), 0), Err(ActionError::CannotPassOnLead));
    assert_eq!(
        deal.bid(seat(0), Bid::Three, 0),
        Err(ActionError::WrongPhase {
            phase: Phase::Playing
        })
    );
    let farmer_card = lowest(&deal, seat(1));
    assert_eq!(
        deal.play(seat(0), &[farmer_card], 0),
        Err(ActionError::CardsNotInHand)
    );
    assert_eq!(deal.play(seat(0), &[], 0), Err(ActionError::EmptyPlay));
    let c = lowest(&deal, seat(0));
    assert_eq!(
        deal.play(seat(0), &[c, c], 0),
        Err(ActionError::DuplicateCard)
    );
    let (low, high) = (lowest(&deal, seat(0)), highest(&deal, seat(0)));
    if low.rank() != high.rank() {
        assert_eq!(
            deal.play(seat(0), &[low, high], 0),
            Err(ActionError::InvalidCombination)
        );
    }
    assert_eq!(deal, before);

    // A single that does not beat.
    deal.play(seat(0), &[high], 0)
        .expect("lead the highest card");
    let before = deal.clone();
    let low = lowest(&deal, seat(1));
    assert!(matches!(
        deal.play(seat(1), &[low], 0),
        Err(ActionError::DoesNotBeat { .. })
    ));
    assert_eq!(deal, before);
}

#[test]
fn errors_never_name_cards() {
    let mut deal = landlord_deal(Bid::Three);
    let farmer_card = lowest(&deal, seat(1));
    let error = deal
        .play(seat(0), &[farmer_card], 0)
        .expect_err("not in hand");
    let text = error.to_string();
    assert!(!text.contains(&farmer_card.to_string()), "{text}");
}

#[test]
fn after_two_passes_the_last_player_leads() {
    let mut deal = landlord_deal(Bid::Three);
    let card = highest(&deal, seat(0));
    deal.play(seat(0), &[card], 0).expect("lead");
    assert!(deal.trick().is_some());
    deal.pass(seat(1), 0).expect("pass");
    assert!(deal.trick().is_some(), "one pass keeps the trick");
    let events = deal.pass(seat(2), 0).expect("pass");
    assert_eq!(deal.to_act(), Some(seat(0)));
    assert!(deal.trick().is_none());
    assert!(
        events
            .iter()
            .any(|e| matches!(e.body, EventBody::TurnStarted { lead: true, .. }))
    );
    assert_eq!(deal.pass(seat(0), 0), Err(ActionError::CannotPassOnLead));
}

/// Landlord leads its lowest card every time and both farmers pass: a spring.
#[test]
fn spring_doubles_when_no_farmer_played_a_card() {
    let mut deal = landlord_deal(Bid::Two);
    while deal.phase() == Phase::Playing {
        let card = lowest(&deal, seat(0));
        deal.play(seat(0), &[card], 0).expect("lead");
        if deal.phase() == Phase::Playing {
            deal.pass(seat(1), 0).expect("pass");
            deal.pass(seat(2), 0).expect("pass");
        }
    }
    let s = deal.settlement().expect("settled");
    assert_eq!(s.outcome, Outcome::LandlordWon);
    assert!(s.spring && !s.anti_spring);
    assert_eq!(s.multiplier, 2);
    // base = 2 × 10; landlord +2 × 20 × 2, farmers −20 × 2 each.
    assert_eq!(s.points, [80, -40, -40]);
}

/// The landlord's opening play is its only one and a farmer plays out: an anti-spring.
#[test]
fn anti_spring_doubles_when_the_landlord_played_only_its_opening_play() {
    let mut deal = landlord_deal(Bid::One);
    let opening = lowest(&deal, seat(0));
    deal.play(seat(0), &[opening], 0).expect("lead");
    let answer = highest(&deal, seat(1));
    assert!(
        answer.rank() > opening.rank(),
        "pick a seed where the farmer can answer"
    );
    deal.play(seat(1), &[answer], 0).expect("beat");
    deal.pass(seat(2), 0).expect("pass");
    deal.pass(seat(0), 0).expect("pass");
    while deal.phase() == Phase::Playing {
        let card = lowest(&deal, seat(1));
        deal.play(seat(1), &[card], 0).expect("lead");
        if deal.phase() == Phase::Playing {
            deal.pass(seat(2), 0).expect("pass");
            deal.pass(seat(0), 0).expect("pass");
        }
    }
    let s = deal.settlement().expect("settled");
    assert_eq!(s.outcome, Outcome::FarmersWon { seat: seat(1) });
    assert!(s.anti_spring && !s.spring);
    // base = 1 × 10, ×2 for the anti-spring: landlord −40, farmers +20 each.
    assert_eq!(s.points, [-40, 20, 20]);
}

#[test]
fn a_timeout_in_bidding_is_a_pass() {
    let mut deal = new_deal(1, seat(0));
    assert!(deal.check_timeout(TURN_MS - 1).is_empty());
    let events = deal.check_timeout(TURN_MS);
    assert!(events.iter().any(|e| e.body
        == EventBody::BidMade {
            seat: seat(0),
            bid: Bid::Pass,
            by: Actor::Timeout
        }));
    assert_eq!(deal.to_act(), Some(seat(1)));
    assert_eq!(deal.deadline_ms(), Some(2 * TURN_MS));
}

#[test]
fn a_timeout_when_leading_plays_the_lowest_single_and_when_following_passes() {
    let mut deal = landlord_deal(Bid::Three);
    let low = lowest(&deal, seat(0));
    let events = deal.check_timeout(TURN_MS);
    assert!(events.iter().any(|e| matches!(&e.body,
        EventBody::Played { seat: s, cards, by: Actor::Timeout, combination, .. }
            if *s == seat(0) && cards == &vec![low] && combination.kind == Kind::Single)));
    assert_eq!(deal.to_act(), Some(seat(1)));
    let events = deal.check_timeout(2 * TURN_MS);
    assert!(events.iter().any(|e| e.body
        == EventBody::Passed {
            seat: seat(1),
            by: Actor::Timeout
        }));
}

#[test]
fn two_timeouts_in_a_row_put_a_seat_on_auto_play_until_it_acts() {
    let mut deal = landlord_deal(Bid::Three);
    let mut now = 0;
    // Seat 0 leads by timeout, seats 1 and 2 pass by timeout, and again.
    for _ in 0..2 {
        for _ in 0..3 {
            now = deal.deadline_ms().expect("running");
            deal.check_timeout(now);
        }
    }
    for s in Seat::ALL {
        assert!(deal.is_on_auto_play(s), "seat {s}");
        assert!(deal.view(seat(1)).auto_play[s.index()]);
    }
    // On auto-play the deadline is short, and auto_play_pending plays at once.
    assert_eq!(deal.deadline_ms(), Some(now + AUTO_MS));
    let events = deal.auto_play_pending(now);
    assert!(events.iter().all(|e| !matches!(
        e.body,
        EventBody::Played {
            by: Actor::Seat,
            ..
        }
    )));
    // Every seat is on auto-play, so the deal runs to its end.
    assert_eq!(deal.phase(), Phase::Finished);
}

/// An auto-player that always answers the same, counting how often it was asked.
struct Fixed {
    choice: Option<RankCounts>,
    asked: Cell<u32>,
}

impl Fixed {
    fn new(choice: Option<&str>) -> Fixed {
        Fixed {
            choice: choice.map(|t| RankCounts::parse(t).expect("ranks")),
            asked: Cell::new(0),
        }
    }
}

impl AutoPlayer for Fixed {
    fn choose(&self, view: &SeatView) -> Option<Choice> {
        self.asked.set(self.asked.get() + 1);
        assert_eq!(view.to_act, Some(view.seat), "asked for the seat to act");
        assert_eq!(view.phase, Phase::Playing);
        self.choice.map(Choice::from)
    }
}

/// The ranks of the `Played` events, in order, with who chose them.
fn played(events: &[doudizhu_rules::Event]) -> Vec<(Seat, RankCounts, Actor)> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Played {
                seat, cards, by, ..
            } => Some((
                *seat,
                cards.iter().copied().collect::<CardSet>().rank_counts(),
                *by,
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn a_seat_on_auto_play_plays_what_the_auto_player_chooses() {
    let mut deal = landlord_deal(Bid::Three);
    let landlord = seat(0);
    // The highest-ranked lead the rules list: anything but the timeout's smallest single.
    let plays = deal.legal_plays(landlord).expect("landlord leads");
    let chosen = plays.last().expect("a lead").ranks;
    let text = chosen.to_string();
    deal.set_auto_play(landlord, true, 0).expect("set");
    let auto = Fixed::new(Some(&text));
    let events = deal.auto_play_pending_with(0, &auto);
    assert_eq!(auto.asked.get(), 1);
    assert_eq!(played(&events), [(landlord, chosen, Actor::AutoPlay)]);
    assert_eq!(deal.to_act(), Some(seat(1)));
}

#[test]
fn a_refused_or_missing_auto_play_choice_gets_the_timeout_move() {
    // Leading with cards not in the hand: refused, so the smallest single is led.
    let mut deal = landlord_deal(Bid::Three);
    let landlord = seat(0);
    let lowest_card = lowest(&deal, landlord);
    let missing = ["3 3 3 3", "4 4 4 4", "5 5 5 5"]
        .into_iter()
        .find(|t| {
            !RankCounts::parse(t)
                .expect("ranks")
                .is_subset(&deal.hand(landlord).rank_counts())
        })
        .expect("no hand holds three bombs of 3, 4 and 5");
    deal.set_auto_play(landlord, true, 0).expect("set");
    let events = deal.auto_play_pending_with(0, &Fixed::new(Some(missing)));
    assert_eq!(
        played(&events),
        [(
            landlord,
            CardSet::from_iter([lowest_card]).rank_counts(),
            Actor::AutoPlay
        )]
    );
    // Leading with no choice at all: the smallest single again.
    let mut deal = landlord_deal(Bid::Three);
    deal.set_auto_play(landlord, true, 0).expect("set");
    let events = deal.auto_play_pending_with(0, &Fixed::new(None));
    assert_eq!(played(&events).len(), 1);
    assert_eq!(
        played(&events)[0].1,
        CardSet::from_iter([lowest_card]).rank_counts()
    );
    // Following with a play that does not beat (a lone 3 under anything): a pass.
    deal.set_auto_play(landlord, false, 0).expect("off");
    deal.set_auto_play(seat(1), true, 0).expect("set");
    let events = deal.auto_play_pending_with(0, &Fixed::new(Some("3")));
    assert!(played(&events).is_empty());
    assert!(events.iter().any(|e| e.body
        == EventBody::Passed {
            seat: seat(1),
            by: Actor::AutoPlay
        }));
}

#[test]
fn a_timeout_gets_the_timeout_move_whatever_the_auto_player() {
    let mut deal = landlord_deal(Bid::Three);
    let landlord = seat(0);
    let lowest_card = lowest(&deal, landlord);
    let auto = Fixed::new(Some("X D"));
    let events = deal.check_timeout_with(TURN_MS, &auto);
    assert_eq!(
        auto.asked.get(),
        0,
        "a seat not on auto-play is not the bot's"
    );
    assert_eq!(
        played(&events),
        [(
            landlord,
            CardSet::from_iter([lowest_card]).rank_counts(),
            Actor::Timeout
        )]
    );
}

#[test]
fn acting_clears_auto_play() {
    let mut deal = new_deal(1, seat(0));
    deal.set_auto_play(seat(1), true, 0).expect("set");
    assert!(deal.is_on_auto_play(seat(1)));
    deal.bid(seat(0), Bid::One, 0).expect("bid");
    assert_eq!(deal.deadline_ms(), Some(AUTO_MS));
    let events = deal.bid(seat(1), Bid::Two, 10).expect("bid");
    assert!(!deal.is_on_auto_play(seat(1)));
    assert!(events.iter().any(|e| e.body
        == EventBody::AutoPlayChanged {
            seat: seat(1),
            on: false
        }));
    // A single timeout does not put a seat on auto-play.
    deal.check_timeout(10 + TURN_MS);
    assert!(!deal.is_on_auto_play(seat(2)));
}

#[test]
fn a_seat_on_auto_play_that_bids_itself_landlord_gets_the_full_turn() {
    let mut deal = new_deal(1, seat(0));
    deal.set_auto_play(seat(0), true, 0).expect("set");
    let events = deal.bid(seat(0), Bid::Three, 100).expect("bid");
    assert_eq!(deal.deadline_ms(), Some(100 + TURN_MS));
    assert!(events.iter().any(|e| matches!(e.body,
        EventBody::TurnStarted { deadline_ms, lead: true, .. } if deadline_ms == 100 + TURN_MS)));
}

#[test]
fn a_refused_action_keeps_auto_play() {
    let mut deal = landlord_deal(Bid::Three);
    deal.set_auto_play(seat(0), true, 0).expect("set");
    assert_eq!(deal.pass(seat(0), 0), Err(ActionError::CannotPassOnLead));
    assert!(deal.is_on_auto_play(seat(0)));
}

#[test]
fn escape_before_any_bid_costs_three_points_whatever_the_points_base() {
    let mut deal = new_deal(1, seat(0));
    deal.bid(seat(0), Bid::Pass, 0).expect("pass");
    deal.escape(seat(2), 0).expect("escape");
    let s = deal.settlement().expect("settled");
    assert_eq!(s.outcome, Outcome::Escaped { seat: seat(2) });
    // docs/rules.md#leaving-a-deal: "3 points, whatever the room's points base" (the points base here is 10).
    assert_eq!(s.points, [0, 0, -3]);
    assert_eq!(deal.escape(seat(1), 0), Err(ActionError::GameOver));
}

#[test]
fn escape_costs_three_times_base_times_multiplier() {
    let mut deal = landlord_deal(Bid::Two);
    deal.escape(seat(1), 0).expect("escape");
    // base = 2 × 10, multiplier 1: −60 for the escaper, nothing for the others.
    assert_eq!(deal.settlement().expect("settled").points, [0, -60, 0]);
}

#[test]
fn a_finished_deal_records_enough_to_check_the_shuffle() {
    let mut deal = landlord_deal(Bid::Three);
    assert!(deal.record().is_none(), "no record while the deal goes on");
    assert!(deal.view(seat(1)).seed.is_none());
    deal.escape(seat(2), 0).expect("escape");
    let record = deal.record().expect("finished");
    assert_eq!(record.verify(), Ok(()));
    assert_eq!(record.hands[0].len(), 17);
    assert_eq!(record.kitty.len(), 3);
    assert!(deal.view(seat(1)).seed.is_some());
}

#[test]
fn a_deal_round_trips_through_json_compactly() {
    let mut deal = landlord_deal(Bid::Three);
    // Some play: timeouts until a few turns are in.
    for _ in 0..7 {
        let now = deal.deadline_ms().expect("running");
        deal.check_timeout(now);
    }
    let json = serde_json::to_string(&deal).expect("serialize");
    let back: Deal = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, deal);
    assert!(
        json.len() < 1_500,
        "mid-deal state is {} bytes: {json}",
        json.len()
    );
    println!("mid-deal state: {} bytes of JSON: {json}", json.len());
}

#[test]
fn a_deal_id_is_limited() {
    let seed = Seed::from_bytes([0; 32]);
    assert!(Deal::new("", seed, seat(0), rules(), 0).is_err());
    assert!(Deal::new(&"x".repeat(129), seed, seat(0), rules(), 0).is_err());
}

/// An auto-player that bids a fixed bid (a bot seat's way), never plays.
struct Bids(Bid);

impl AutoPlayer for Bids {
    fn choose(&self, _view: &SeatView) -> Option<Choice> {
        None
    }

    fn bid(&self, view: &SeatView) -> Bid {
        assert_eq!(view.phase, Phase::Bidding);
        assert_eq!(view.to_act, Some(view.seat), "asked for the seat to act");
        self.0
    }
}

fn bids_made(events: &[doudizhu_rules::Event]) -> Vec<(Seat, Bid, Actor)> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::BidMade { seat, bid, by } => Some((*seat, *bid, *by)),
            _ => None,
        })
        .collect()
}

#[test]
fn an_auto_player_that_bids_bids_and_a_refused_bid_becomes_a_pass() {
    // Seat 0 bids first, on auto-play with a player that bids 2.
    let mut deal = new_deal(7, seat(0));
    deal.set_auto_play(seat(0), true, 0).expect("set");
    let events = deal.auto_play_pending_with(0, &Bids(Bid::Two));
    assert_eq!(bids_made(&events), [(seat(0), Bid::Two, Actor::AutoPlay)]);
    assert_eq!(deal.to_act(), Some(seat(1)));

    // Seat 1 on auto-play with a player that bids 1, below the 2 standing: a pass.
    deal.set_auto_play(seat(1), true, 0).expect("set");
    let events = deal.auto_play_pending_with(0, &Bids(Bid::One));
    assert_eq!(bids_made(&events), [(seat(1), Bid::Pass, Actor::AutoPlay)]);

    // The default auto-player passes in bidding (a player's 托管 never raises stakes).
    let mut deal = new_deal(7, seat(0));
    deal.set_auto_play(seat(0), true, 0).expect("set");
    let events = deal.auto_play_pending(0);
    assert_eq!(bids_made(&events), [(seat(0), Bid::Pass, Actor::AutoPlay)]);
}
